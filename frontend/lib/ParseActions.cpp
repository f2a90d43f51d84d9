//===- ParseActions.cpp - What one parse of a unit collects ---------------===//
#include "ParseActions.h"

#include "FilesRead.h"
#include "NvccOnlyCode.h"
#include "TraversalScope.h"

#include "tilefit/matchers/BodySlicer.h"
#include "tilefit/matchers/InstantiationRecorder.h"
#include "tilefit/matchers/LaunchSites.h"
#include "tilefit/matchers/MatchInstantiated.h"
#include "tilefit/matchers/SharedMemoryCollector.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Sema/ExternalSemaSource.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/TemplateInstCallback.h"
#include "clang/Serialization/ASTReader.h"

#include <functional>
#include <optional>
#include <set>

namespace tilefit {
namespace frontend {
namespace {

/// Collects the declarations a parse reads itself, for a traversal limited to
/// them (ASTContext::setTraversalScope) when a precompiled header holds the
/// rest.
class TopLevelDecls {
public:
  explicit TopLevelDecls(LoadedHeaders Loaded) : Loaded(std::move(Loaded)) {}
  void add(clang::DeclGroupRef Group) {
    // Sema hands over the functions it instantiates at the end of the unit as
    // well; the traversals reach them through their templates, where the unit's
    // traversal finds them.
    for (clang::Decl *D : Group) {
      if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
          FD && FD->isTemplateInstantiation())
        continue;
      Decls.push_back(D);
      // Variables Sema instantiates (static data members, variable
      // templates) bring no function and no __shared__ name of their own;
      // nor do the precompiled header's declarations the AST reader hands
      // over as it reads them (those it finds "interesting"), which the
      // slicing's scope already held.
      if (const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
          !D->isFromASTFile() &&
          (!VD || !clang::isTemplateInstantiation(
                      VD->getTemplateSpecializationKind())))
        ++Written;
    }
  }
  /// With the CUDA runtime headers precompiled, the matchers and walks visit
  /// what this parse read (as clangd limits its traversals to the main file's
  /// top-level declarations): the whole unit would deserialize every
  /// declaration of the precompiled header. The headers declare no kernel, no
  /// launch and no __shared__ or __constant__ variable; their functions are
  /// still reached through the calls of the kernels.
  ///
  /// A preamble or a precompiled prefix holds the file's own headers as well,
  /// whose declarations (kernels, __shared__ variables, functions in the
  /// emission order) a parse without it visits: the traversal then covers the
  /// unit's top-level declarations but those of the CUDA runtime headers. A
  /// prefix's record names them without reading the others.
  ///
  /// Within the file's own headers, the walks visit of each namespace only
  /// what the header walk's record names (TraversalScope.h,
  /// flattenHeaderWalk): the first parse that loads the header makes the
  /// record, having read every namespace. Returns "made", "read" or "" (no
  /// record: a whole traversal) for TranslationUnitFacts::HeaderWalk.
  std::string limitTraversal(clang::ASTContext &Ctx,
                             clang::ASTReader *Reader) const {
    if (!Ctx.getExternalSource())
      return "";
    std::vector<clang::Decl *> Scope = scope(Ctx);
    std::string Made;
    if (Reader && Loaded.OwnHeaders && Loaded.LoadRecord) {
      std::vector<clang::Decl *> Flat;
      if (flattenHeaderWalk(*Reader, Loaded.LoadRecord(HeaderRecord::Walk),
                            Scope, Flat)) {
        Scope = std::move(Flat);
        Made = "read";
      } else if (std::string Record =
                     Loaded.StoreRecord ? recordHeaderWalk(*Reader, Scope) : "";
                 !Record.empty() &&
                 flattenHeaderWalk(*Reader, Record, Scope, Flat)) {
        // The parse that makes the record walks as the next ones will.
        Loaded.StoreRecord(HeaderRecord::Walk, Record);
        Scope = std::move(Flat);
        Made = "made";
      }
    }
    Ctx.setTraversalScope(Scope);
    return Made;
  }

  /// The declarations the traversal visits (limitTraversal): with nothing
  /// precompiled, the whole unit.
  std::vector<clang::Decl *> scope(clang::ASTContext &Ctx) const {
    if (!Ctx.getExternalSource()) {
      const auto Decls = Ctx.getTranslationUnitDecl()->decls();
      return {Decls.begin(), Decls.end()};
    }
    if (!Loaded.OwnHeaders)
      return Decls;
    std::vector<clang::Decl *> Scope;
    if (!Loaded.PrefixScope.empty() &&
        prefixTraversalScope(Ctx, Loaded.PrefixScope, Scope))
      return Scope;
    const clang::SourceManager &SM = Ctx.getSourceManager();
    llvm::DenseMap<clang::FileID, bool> Runtime;
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!fromRuntimeHeaders(SM, D->getLocation(), Runtime))
        Scope.push_back(D);
    return Scope;
  }

  /// How many top-level declarations the parse has handed over so far,
  /// instantiations left out: a body slicing over them stays valid until this
  /// changes.
  size_t written() const { return Written; }

  /// The top-level declarations the parse handed over, instantiated functions
  /// left out.
  const std::vector<clang::Decl *> &handed() const { return Decls; }

  /// What the parse loads in place of headers.
  const LoadedHeaders &loaded() const { return Loaded; }

private:
  LoadedHeaders Loaded;
  std::vector<clang::Decl *> Decls;
  size_t Written = 0;
};

/// The unit's `__shared__` variables (template patterns too), for the source
/// fix-ups.
class SharedVarList : public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) {
    using namespace clang::ast_matchers;
    Finder.addMatcher(varDecl(hasAttr(clang::attr::CUDAShared)).bind("var"),
                      this);
  }
  void
  run(const clang::ast_matchers::MatchFinder::MatchResult &Result) override {
    if (const auto *VD = Result.Nodes.getNodeAs<clang::VarDecl>("var"))
      Vars.push_back(VD);
  }
  std::vector<const clang::VarDecl *> Vars;
};

/// Sema asks its external sources for pending instantiations once the unit is
/// parsed, just before it instantiates every template the unit used: the one
/// moment at which every declaration ADL could find is known and no body of a
/// kernel template has been instantiated yet. The body slicer runs then.
class BeforeInstantiation : public clang::ExternalSemaSource {
public:
  explicit BeforeInstantiation(std::function<void()> Run)
      : Run(std::move(Run)) {}
  void ReadPendingInstantiations(
      llvm::SmallVectorImpl<
          std::pair<clang::ValueDecl *, clang::SourceLocation>> &) override {
    if (auto F = std::move(Run)) {
      Run = nullptr;
      F();
    }
  }

private:
  std::function<void()> Run;
};

/// An instantiation made while the unit is still being parsed (an explicit
/// instantiation definition, `template __global__ void k<4>(float *);`) sees
/// the declarations parsed so far: the slicer runs over those just before it,
/// unless it is nested in another.
class BeforeEarlyInstantiation : public clang::TemplateInstantiationCallback {
public:
  explicit BeforeEarlyInstantiation(std::function<void()> Run)
      : Run(std::move(Run)) {}
  void initialize(const clang::Sema &) override {}
  void finalize(const clang::Sema &) override {}
  void atTemplateBegin(const clang::Sema &S,
                       const clang::Sema::CodeSynthesisContext &C) override {
    if (Done || S.CodeSynthesisContexts.size() != 1 ||
        C.Kind != clang::Sema::CodeSynthesisContext::TemplateInstantiation)
      return;
    // Only what the slicer slices: kernels and device-only functions (not the
    // host-device ones Clang instantiates all through a CuTe parse).
    const auto *FD = llvm::dyn_cast_or_null<clang::FunctionDecl>(C.Entity);
    if (FD && (FD->hasAttr<clang::CUDAGlobalAttr>() ||
               (FD->hasAttr<clang::CUDADeviceAttr>() &&
                !FD->hasAttr<clang::CUDAHostAttr>())))
      Run();
  }
  void atTemplateEnd(const clang::Sema &,
                     const clang::Sema::CodeSynthesisContext &) override {}
  /// The end of the unit is reached: the other hook runs from there on.
  bool Done = false;

private:
  std::function<void()> Run;
};

/// The body slicer slices a template as Sema begins its first instantiation
/// (BodySlicer::beforeInstantiating); it runs after BeforeEarlyInstantiation,
/// which may have just decided what to slice.
class SliceOnInstantiation : public clang::TemplateInstantiationCallback {
public:
  SliceOnInstantiation(std::function<void(const clang::FunctionDecl *)> Before,
                       std::function<void(const clang::FunctionDecl *)> After)
      : Before(std::move(Before)), After(std::move(After)) {}
  void initialize(const clang::Sema &) override {}
  void finalize(const clang::Sema &) override {}
  void atTemplateBegin(const clang::Sema &S,
                       const clang::Sema::CodeSynthesisContext &C) override {
    const clang::FunctionDecl *FD = instantiated(C);
    if (!FD)
      return;
    // Sema instantiates what a body calls before it leaves that body's
    // instantiation: the bodies around this one that are built are read
    // first.
    for (const clang::Sema::CodeSynthesisContext &Outer :
         S.CodeSynthesisContexts)
      if (const clang::FunctionDecl *Caller = instantiated(Outer);
          Caller && Caller != FD && Caller->hasBody())
        After(Caller);
    Before(FD);
  }
  /// The body just instantiated (BodySlicer::afterInstantiating).
  void atTemplateEnd(const clang::Sema &,
                     const clang::Sema::CodeSynthesisContext &C) override {
    if (const clang::FunctionDecl *FD = instantiated(C); FD && FD->hasBody())
      After(FD);
  }

private:
  static const clang::FunctionDecl *
  instantiated(const clang::Sema::CodeSynthesisContext &C) {
    if (C.Kind != clang::Sema::CodeSynthesisContext::TemplateInstantiation)
      return nullptr;
    return llvm::dyn_cast_or_null<clang::FunctionDecl>(C.Entity);
  }
  std::function<void(const clang::FunctionDecl *)> Before, After;
};

/// Records where `__LINE__` is expanded in the main file (written there, or
/// in a macro used there): the `__LINE__` tokens' locations.
class LineWatcher : public clang::PPCallbacks {
public:
  LineWatcher(const clang::SourceManager &SM,
              std::vector<clang::SourceLocation> &Found)
      : SM(SM), Found(Found) {}
  void MacroExpands(const clang::Token &Name, const clang::MacroDefinition &,
                    clang::SourceRange, const clang::MacroArgs *) override {
    if (Name.getIdentifierInfo() &&
        Name.getIdentifierInfo()->getName() == "__LINE__" &&
        SM.isWrittenInMainFile(SM.getExpansionLoc(Name.getLocation())))
      Found.push_back(Name.getLocation());
  }

private:
  const clang::SourceManager &SM;
  std::vector<clang::SourceLocation> &Found;
};

/// The `__LINE__` values (\p Tokens: where each was expanded) that go where
/// no fact can read them: an argument a C function of a system header takes
/// by value and gives nothing back from (a variadic argument of printf or
/// fprintf, the line of assert's __assert_fail). The literal Clang makes of a
/// `__LINE__` is an expansion of it.
class LineSinks : public clang::RecursiveASTVisitor<LineSinks> {
public:
  LineSinks(const clang::SourceManager &SM,
            const std::vector<clang::SourceLocation> &Tokens)
      : SM(SM) {
    for (clang::SourceLocation T : Tokens)
      Pending.insert(T.getRawEncoding());
  }
  bool VisitCallExpr(clang::CallExpr *Call) {
    llvm::SmallVector<const clang::FunctionDecl *, 2> Callees;
    if (!candidates(Call, Callees))
      return true;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const auto *Literal = llvm::dyn_cast<clang::IntegerLiteral>(
          Call->getArg(I)->IgnoreParenImpCasts());
      if (!Literal || !Literal->getLocation().isMacroID())
        continue;
      if (llvm::all_of(Callees, [&](const clang::FunctionDecl *F) {
            return takesByValue(F, I);
          }))
        Pending.erase(SM.getImmediateExpansionRange(Literal->getLocation())
                          .getBegin()
                          .getRawEncoding());
    }
    return true;
  }
  /// Whether a `__LINE__` is left that may reach a fact.
  bool anyLeft() const { return !Pending.empty(); }

private:
  /// Every function \p Call can call, where each is a C function of a system
  /// header: its callee, or in a template the functions its name found, where
  /// no argument can add one by ADL (none is of a class or enumeration type;
  /// a dependent one is `__PRETTY_FUNCTION__`, as in assert).
  bool candidates(const clang::CallExpr *Call,
                  llvm::SmallVectorImpl<const clang::FunctionDecl *> &Out) {
    if (const clang::FunctionDecl *F = Call->getDirectCallee()) {
      Out.push_back(F);
    } else if (const auto *Lookup = llvm::dyn_cast<clang::UnresolvedLookupExpr>(
                   Call->getCallee()->IgnoreParenImpCasts())) {
      for (const clang::NamedDecl *D : Lookup->decls()) {
        const auto *F =
            llvm::dyn_cast<clang::FunctionDecl>(D->getUnderlyingDecl());
        if (!F)
          return false;
        Out.push_back(F);
      }
      for (const clang::Expr *Arg : Call->arguments()) {
        if (Arg->isTypeDependent()) {
          if (!llvm::isa<clang::PredefinedExpr>(Arg->IgnoreParenImpCasts()))
            return false;
          continue;
        }
        clang::QualType T = Arg->getType().getNonReferenceType();
        while (!T.isNull() && (T->isPointerType() || T->isArrayType()))
          T = T->isPointerType() ? T->getPointeeType()
                                 : clang::QualType(
                                       T->getPointeeOrArrayElementType(), 0);
        if (T.isNull() || !T->isBuiltinType())
          return false;
      }
    }
    if (Out.empty())
      return false;
    return llvm::all_of(Out, [&](const clang::FunctionDecl *F) {
      return !llvm::isa<clang::CXXMethodDecl>(F) && F->isInExternCContext() &&
             SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation()));
    });
  }

  /// Whether \p F takes its argument \p I by value and gives nothing back
  /// from it: a variadic argument, or any of a function returning void.
  static bool takesByValue(const clang::FunctionDecl *F, unsigned I) {
    if (I >= F->getNumParams())
      return F->isVariadic();
    return F->getReturnType()->isVoidType() &&
           !F->getParamDecl(I)->getType()->isReferenceType();
  }

  const clang::SourceManager &SM;
  std::set<clang::SourceLocation::UIntTy> Pending;
};

/// Whether a `__LINE__` expanded in the main file (\p Tokens) may make a fact
/// depend on where a line is (FactsMemo.h): one that is not only printed, or
/// that the AST does not hold (a `#if`, a body not parsed).
bool lineDependent(clang::ASTContext &Ctx,
                   llvm::ArrayRef<clang::Decl *> Decls,
                   const std::vector<clang::SourceLocation> &Tokens) {
  if (Tokens.empty())
    return false;
  const clang::SourceManager &SM = Ctx.getSourceManager();
  LineSinks Sinks(SM, Tokens);
  for (clang::Decl *D : Decls)
    if (SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
      Sinks.TraverseDecl(D);
  return Sinks.anyLeft();
}

class CollectConsumer : public clang::ASTConsumer {
public:
  CollectConsumer(clang::CompilerInstance &CI, TranslationUnitFacts &Out,
                  const matchers::InstantiationRecorder &Recorder,
                  LoadedHeaders Loaded, ParseOutcome &Outcome)
      : CI(CI), Out(Out), Recorder(Recorder), TopLevel(std::move(Loaded)),
        Outcome(Outcome) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    TopLevel.add(Group);
    return true;
  }

  /// Slices the unit's device function templates (BodySlicer.h), where asked,
  /// over the declarations parsed so far (unless none came since the last
  /// time).
  void sliceBodies(clang::ASTContext &Ctx) {
    if (!Outcome.SliceBodies)
      return;
    if (Slicer && TopLevel.written() == SlicedAt)
      return;
    if (!Slicer)
      Slicer.emplace();
    SlicedAt = TopLevel.written();
    // The runtime headers declare no __shared__ variable and call nothing of
    // the unit's: left out whether precompiled or not, so that a parse slices
    // alike either way.
    const clang::SourceManager &SM = Ctx.getSourceManager();
    llvm::DenseMap<clang::FileID, bool> Runtime, Own;
    std::vector<clang::Decl *> Scope;
    for (clang::Decl *D : TopLevel.scope(Ctx))
      if (!fromRuntimeHeaders(SM, D->getLocation(), Runtime) &&
          !includedFrom(
              SM, D->getLocation(),
              [&](llvm::StringRef Name) {
                // tilefit's compatibility headers, `-include`d by every parse
                // and precompiled with the runtime headers.
                return !Outcome.ResourceInclude.empty() &&
                       Name.starts_with(Outcome.ResourceInclude);
              },
              Own))
        Scope.push_back(D);
    // A precompiled prefix's declarations are read once, by the first parse
    // that loads it, and what the slicer needs of them recorded beside it
    // for the next ones.
    const LoadedHeaders &Loaded = TopLevel.loaded();
    if (!Inventory && Loaded.LoadRecord)
      Inventory = Loaded.LoadRecord(HeaderRecord::Slicing);
    std::string Record;
    Slicer->slice(Ctx, Scope, !Outcome.Errors->errors().empty(),
                  Outcome.Relocatable, Inventory ? *Inventory : "",
                  Loaded.StoreRecord && !InventoryStored ? &Record : nullptr);
    if (!Record.empty()) {
      Loaded.StoreRecord(HeaderRecord::Slicing, Record);
      InventoryStored = true;
    }
  }

  /// Sema is about to instantiate \p FD.
  void beforeInstantiating(const clang::FunctionDecl *FD) {
    if (Slicer)
      Slicer->beforeInstantiating(FD);
  }
  /// Sema instantiated \p FD's body.
  void afterInstantiating(const clang::FunctionDecl *FD) {
    if (Slicer)
      Slicer->afterInstantiating(FD);
  }

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    Out.Inputs = filesRead(Ctx.getSourceManager());
    Outcome.LineDependent = lineDependent(Ctx, TopLevel.handed(), Outcome.Lines);
    // A unit with errors is analysed as Clang built it (ParseErrors.h), unless
    // its errors are constructs nvcc accepts that a rewrite makes Clang accept
    // too: it is then parsed again, rewritten, and this parse's facts are not
    // needed.
    Out.HeaderWalk = TopLevel.limitTraversal(Ctx, CI.getASTReader().get());
    const std::vector<matchers::ParseError> &Errors = Outcome.Errors->errors();
    const bool Sliced = Slicer && Slicer->summary().Functions > 0;
    if (Sliced && !Errors.empty()) {
      // Errors after slicing: the whole parse reports them as Clang would.
      Outcome.SliceAgain = Reason(ReasonKind::SliceInstantiationError);
      return;
    }
    if (!Errors.empty() && Outcome.AllowFixups) {
      clang::ast_matchers::MatchFinder Finder;
      SharedVarList Shared;
      Shared.registerMatchers(Finder);
      Finder.matchAST(Ctx);
      Outcome.Fixups = sourceFixups(Ctx, Outcome.Errors->reported(),
                                    Shared.Vars, Outcome.Relocatable);
      if (!Outcome.Fixups.empty())
        return;
    }
    clang::ast_matchers::MatchFinder Finder;
    matchers::SharedMemoryCollector Collector;
    Collector.setArchConditionals(&Outcome.Arch);
    if (Slicer)
      Collector.setSlicer(&*Slicer);
    Collector.searchModuleIdInScope(!Out.HeaderWalk.empty());
    Collector.registerMatchers(Finder);
    matchers::matchInstantiated(Finder, Ctx);
    Collector.finish(Ctx, Recorder, Errors, Out);
    // Whether an error came before the slicing or during instantiation (which
    // can depend on what is precompiled), nothing was sliced.
    if (!Errors.empty() && Out.Slicing.Enabled)
      Out.Slicing.Fallback = Reason(ReasonKind::SliceAfterError);
    if (Sliced && Collector.slicedUnsoundly())
      Outcome.SliceAgain = *Collector.slicedUnsoundly();
  }

private:
  /// The parse's, for its AST reader (the header walk's record).
  clang::CompilerInstance &CI;
  TranslationUnitFacts &Out;
  const matchers::InstantiationRecorder &Recorder;
  TopLevelDecls TopLevel;
  ParseOutcome &Outcome;
  std::optional<matchers::BodySlicer> Slicer;
  size_t SlicedAt = 0;
  /// The header's record, read when first sliced (LoadedHeaders).
  std::optional<std::string> Inventory;
  bool InventoryStored = false;
};

class CollectAction : public clang::ASTFrontendAction {
public:
  CollectAction(TranslationUnitFacts &Out, LoadedHeaders Loaded,
                ParseOutcome &Outcome)
      : Out(Out), Loaded(std::move(Loaded)), Outcome(Outcome) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    watchNvccOnlyCode(CI.getPreprocessor(), Outcome.NvccOnly);
    watchSkippedHostCalls(CI.getPreprocessor(), Outcome.SkippedHostCalls);
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<LineWatcher>(CI.getSourceManager(), Outcome.Lines));
    watchArchConditionals(CI.getPreprocessor(), Outcome.Arch,
                          Outcome.ResourceInclude);
    // The headers a precompiled prefix holds are not preprocessed here: what
    // its build saw of the same directives stands for them.
    Outcome.NvccOnly.insert(Outcome.NvccOnly.end(),
                            Loaded.Directives.NvccOnly.begin(),
                            Loaded.Directives.NvccOnly.end());
    Outcome.SkippedHostCalls |= Loaded.Directives.SkippedHostCalls;
    Recorder = std::make_unique<matchers::InstantiationRecorder>();
    auto Consumer =
        std::make_unique<CollectConsumer>(CI, Out, *Recorder, Loaded, Outcome);
    Collect = Consumer.get();
    return Consumer;
  }

  /// Sema is created here rather than by the base class so that the
  /// instantiation recorder sees the whole parse.
  void ExecuteAction() override {
    clang::CompilerInstance &CI = getCompilerInstance();
    if (!CI.hasSema())
      CI.createSema(getTranslationUnitKind(), nullptr);
    Outcome.Errors->setSema(&CI.getSema());
    // Sema owns the recorder from here on; it outlives the consumer's use of
    // it.
    CI.getSema().TemplateInstCallbacks.push_back(std::move(Recorder));
    // Sema holds its external sources by reference count, the action too: the
    // hook lives as long as the longer of the two.
    auto Early = std::make_unique<BeforeEarlyInstantiation>(
        [this, &CI] { Collect->sliceBodies(CI.getASTContext()); });
    BeforeEarlyInstantiation *EarlyHook = Early.get();
    CI.getSema().TemplateInstCallbacks.push_back(std::move(Early));
    CI.getSema().TemplateInstCallbacks.push_back(
        std::make_unique<SliceOnInstantiation>(
            [this](const clang::FunctionDecl *FD) {
              Collect->beforeInstantiating(FD);
            },
            [this](const clang::FunctionDecl *FD) {
              Collect->afterInstantiating(FD);
            }));
    Hook =
        llvm::makeIntrusiveRefCnt<BeforeInstantiation>([this, &CI, EarlyHook] {
          EarlyHook->Done = true;
          Collect->sliceBodies(CI.getASTContext());
        });
    CI.getSema().addExternalSource(Hook.get());
    clang::ASTFrontendAction::ExecuteAction();
    Outcome.Errors->setSema(nullptr);
  }

private:
  TranslationUnitFacts &Out;
  LoadedHeaders Loaded;
  ParseOutcome &Outcome;
  std::unique_ptr<matchers::InstantiationRecorder> Recorder;
  CollectConsumer *Collect = nullptr;
  llvm::IntrusiveRefCntPtr<BeforeInstantiation> Hook;
};

/// The host-side parse: launches and attribute calls only.
class HostConsumer : public clang::ASTConsumer {
public:
  HostConsumer(clang::CompilerInstance &CI, std::vector<HostKernelCalls> &Out,
               std::vector<std::string> &Inputs, LoadedHeaders Loaded,
               ParseOutcome &Outcome)
      : CI(CI), Out(Out), Inputs(Inputs), TopLevel(std::move(Loaded)),
        Outcome(Outcome) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    TopLevel.add(Group);
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    Inputs = filesRead(Ctx.getSourceManager());
    Outcome.LineDependent = lineDependent(Ctx, TopLevel.handed(), Outcome.Lines);
    // Launches in code without errors are real whatever else is broken.
    TopLevel.limitTraversal(Ctx, CI.getASTReader().get());
    clang::ast_matchers::MatchFinder Finder;
    matchers::LaunchCollector Launches;
    Launches.registerMatchers(Finder);
    const bool Fix = Outcome.AllowFixups && !Outcome.Errors->errors().empty();
    SharedVarList Shared;
    if (Fix) {
      // The fix-ups want template patterns' variables as well.
      Shared.registerMatchers(Finder);
      Finder.matchAST(Ctx);
    } else {
      matchers::matchInstantiated(Finder, Ctx);
    }
    if (Fix) {
      Outcome.Fixups = sourceFixups(Ctx, Outcome.Errors->reported(),
                                    Shared.Vars, Outcome.Relocatable);
      if (!Outcome.Fixups.empty())
        return;
    }
    Out = matchers::hostKernelCalls(Ctx, Launches);
  }

private:
  clang::CompilerInstance &CI;
  std::vector<HostKernelCalls> &Out;
  std::vector<std::string> &Inputs;
  TopLevelDecls TopLevel;
  ParseOutcome &Outcome;
};

class HostAction : public clang::ASTFrontendAction {
public:
  HostAction(std::vector<HostKernelCalls> &Out,
             std::vector<std::string> &Inputs, LoadedHeaders Loaded,
             ParseOutcome &Outcome)
      : Out(Out), Inputs(Inputs), Loaded(std::move(Loaded)), Outcome(Outcome) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<LineWatcher>(CI.getSourceManager(), Outcome.Lines));
    return std::make_unique<HostConsumer>(CI, Out, Inputs, Loaded, Outcome);
  }

private:
  std::vector<HostKernelCalls> &Out;
  std::vector<std::string> &Inputs;
  LoadedHeaders Loaded;
  ParseOutcome &Outcome;
};

} // namespace

std::unique_ptr<clang::FrontendAction>
makeCollectAction(TranslationUnitFacts &Out, LoadedHeaders Loaded,
                  ParseOutcome &Outcome) {
  return std::make_unique<CollectAction>(Out, std::move(Loaded), Outcome);
}

std::unique_ptr<clang::FrontendAction>
makeHostAction(std::vector<HostKernelCalls> &Out,
               std::vector<std::string> &Inputs, LoadedHeaders Loaded,
               ParseOutcome &Outcome) {
  return std::make_unique<HostAction>(Out, Inputs, std::move(Loaded), Outcome);
}

} // namespace frontend
} // namespace tilefit
