//===- Analyzer.cpp -------------------------------------------------------===//
#include "tilefit/frontend/Analyzer.h"
#include "FilesRead.h"
#include "NvccOnlyCode.h"
#include "SourceFixups.h"
#include "TraversalScope.h"
#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/IncludePrefix.h"
#include "tilefit/frontend/PreambleStore.h"
#include "tilefit/frontend/ResultCache.h"

#include "tilefit/matchers/InstantiationRecorder.h"
#include "tilefit/matchers/LaunchSites.h"
#include "tilefit/matchers/SharedMemoryCollector.h"
#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Cuda.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Sema/Sema.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace tilefit {
namespace frontend {
namespace {

/// Collects Clang's errors (and the notes that follow them) as tilefit
/// diagnostics, and for each error what the analysis of a unit with errors
/// needs: where it is, which template specializations Sema was instantiating
/// (ParseErrors.h), and what a source fix-up needs (SourceFixups.h). Warnings
/// are not tilefit's business.
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  explicit ErrorCollector(std::vector<Diagnostic> &Out) : Out(Out) {}

  /// The parse's Sema, once it exists: errors reported during template
  /// instantiation are then attributed to the specializations being
  /// instantiated.
  void setSema(const clang::Sema *S) { Sema = S; }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(Level, Info);
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    SourcePos Pos;
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      Pos = matchers::toSourcePos(Info.getSourceManager(), Info.getLocation());
    if (Level == clang::DiagnosticsEngine::Note) {
      if (InError && !Out.empty())
        Out.back().Notes.push_back({std::string(Msg), Pos});
      return;
    }
    InError = Level >= clang::DiagnosticsEngine::Error;
    if (!InError)
      return;
    Stopped |= Level == clang::DiagnosticsEngine::Fatal;
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = std::string(checkInfo(CheckId::ClangError).Name);
    D.Message = std::string(Msg);
    D.Loc = Pos;
    Out.push_back(std::move(D));

    matchers::ParseError E;
    E.Loc = Info.getLocation();
    E.Diagnostic = Out.size() - 1;
    E.Fatal = Level == clang::DiagnosticsEngine::Fatal;
    if (Sema)
      for (const clang::Sema::CodeSynthesisContext &C :
           Sema->CodeSynthesisContexts)
        if (C.Kind ==
                clang::Sema::CodeSynthesisContext::TemplateInstantiation &&
            C.Entity &&
            (llvm::isa<clang::FunctionDecl>(C.Entity) ||
             llvm::isa<clang::RecordDecl>(C.Entity)))
          E.Instantiating.push_back(C.Entity->getCanonicalDecl());
    ReportedError R;
    R.ID = Info.getID();
    R.Loc = Info.getLocation();
    R.InInstantiation = !E.Instantiating.empty();
    Errors.push_back(std::move(E));
    for (const clang::CharSourceRange &Range : Info.getRanges())
      R.Ranges.push_back(Range);
    for (unsigned I = 0; I < Info.getNumArgs(); ++I) {
      switch (Info.getArgKind(I)) {
      case clang::DiagnosticsEngine::ak_sint:
        R.IntArgs.push_back(Info.getArgSInt(I));
        break;
      case clang::DiagnosticsEngine::ak_uint:
        R.IntArgs.push_back(static_cast<int64_t>(Info.getArgUInt(I)));
        break;
      case clang::DiagnosticsEngine::ak_tokenkind:
        R.IntArgs.push_back(static_cast<int64_t>(Info.getRawArg(I)));
        break;
      case clang::DiagnosticsEngine::ak_nameddecl:
        R.IntArgs.push_back(0);
        if (!R.DeclArg)
          R.DeclArg =
              reinterpret_cast<const clang::NamedDecl *>(Info.getRawArg(I));
        break;
      default:
        R.IntArgs.push_back(0);
        break;
      }
    }
    // The variable a `__shared__` initialization error is about: in a template
    // instantiation whose body is then dropped, no traversal finds it later.
    if (R.ID == clang::diag::err_shared_var_init && Sema)
      for (const clang::DeclContext *DC = Sema->CurContext; DC && !R.DeclArg;
           DC = DC->getParent())
        for (const clang::Decl *D : DC->decls())
          if (const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
              VD && VD->getLocation() == Info.getLocation())
            R.DeclArg = VD;
    Reported.push_back(std::move(R));
  }

  /// Every error, for the analysis of the kernels they touch.
  const std::vector<matchers::ParseError> &errors() const { return Errors; }
  /// Every error, for the source fix-ups.
  const std::vector<ReportedError> &reported() const { return Reported; }
  /// Whether an error stopped the parse (a fatal error: a missing #include, too
  /// many errors).
  bool stopped() const { return Stopped; }

private:
  std::vector<Diagnostic> &Out;
  const clang::Sema *Sema = nullptr;
  std::vector<matchers::ParseError> Errors;
  std::vector<ReportedError> Reported;
  bool InError = false;
  bool Stopped = false;
};

/// What the device-side parse hands back besides the facts.
struct ParseOutcome {
  ErrorCollector *Errors = nullptr;
  bool AllowFixups =
      false; ///< Look for source fix-ups (FixupRounds times at most).
  bool Relocatable = false;
  std::vector<TextEdit>
      Fixups; ///< Found: the unit is to be parsed again with them.
  /// Blocks of kernels or launches the parse skips and nvcc compiles
  /// (NvccOnlyCode.h).
  std::vector<Diagnostic> NvccOnly;
  /// The parse skipped a block of the project's own with launches
  /// (NvccOnlyCode.h).
  bool SkippedHostCalls = false;
  /// The unit's `__CUDA_ARCH__` conditionals, for nvcc's module id, outside
  /// tilefit's own headers (under ResourceInclude).
  matchers::ArchConditionals Arch;
  std::string ResourceInclude;
};

/// What a parse loads in place of headers, as its traversal needs to know.
struct LoadedHeaders {
  /// A preamble of the file's own headers (PreambleStore), or its leading
  /// #include lines precompiled (HeaderPch): the traversal covers those.
  bool OwnHeaders = false;
  /// For the latter, the record of what to visit of them
  /// (HeaderPchStore::scope); empty if none.
  std::string PrefixScope;
};

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
    for (clang::Decl *D : Group)
      if (const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
          !FD || !FD->isTemplateInstantiation())
        Decls.push_back(D);
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
  void limitTraversal(clang::ASTContext &Ctx) const {
    if (!Ctx.getExternalSource())
      return;
    if (!Loaded.OwnHeaders) {
      Ctx.setTraversalScope(Decls);
      return;
    }
    std::vector<clang::Decl *> Scope;
    if (!Loaded.PrefixScope.empty() &&
        prefixTraversalScope(Ctx, Loaded.PrefixScope, Scope)) {
      Ctx.setTraversalScope(Scope);
      return;
    }
    const clang::SourceManager &SM = Ctx.getSourceManager();
    llvm::DenseMap<clang::FileID, bool> Runtime;
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!fromRuntimeHeaders(SM, D->getLocation(), Runtime))
        Scope.push_back(D);
    Ctx.setTraversalScope(Scope);
  }

private:
  LoadedHeaders Loaded;
  std::vector<clang::Decl *> Decls;
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

class CollectConsumer : public clang::ASTConsumer {
public:
  CollectConsumer(TranslationUnitFacts &Out,
                  const matchers::InstantiationRecorder &Recorder,
                  LoadedHeaders Loaded, ParseOutcome &Outcome)
      : Out(Out), Recorder(Recorder), TopLevel(std::move(Loaded)),
        Outcome(Outcome) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    TopLevel.add(Group);
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    Out.Inputs = filesRead(Ctx.getSourceManager());
    // A unit with errors is analysed as Clang built it (ParseErrors.h), unless
    // its errors are constructs nvcc accepts that a rewrite makes Clang accept
    // too: it is then parsed again, rewritten, and this parse's facts are not
    // needed.
    TopLevel.limitTraversal(Ctx);
    const std::vector<matchers::ParseError> &Errors = Outcome.Errors->errors();
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
    Collector.registerMatchers(Finder);
    Finder.matchAST(Ctx);
    Collector.finish(Ctx, Recorder, Errors, Out);
  }

private:
  TranslationUnitFacts &Out;
  const matchers::InstantiationRecorder &Recorder;
  TopLevelDecls TopLevel;
  ParseOutcome &Outcome;
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
    watchArchConditionals(CI.getPreprocessor(), Outcome.Arch,
                          Outcome.ResourceInclude);
    Recorder = std::make_unique<matchers::InstantiationRecorder>();
    return std::make_unique<CollectConsumer>(Out, *Recorder, Loaded, Outcome);
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
    clang::ASTFrontendAction::ExecuteAction();
    Outcome.Errors->setSema(nullptr);
  }

private:
  TranslationUnitFacts &Out;
  LoadedHeaders Loaded;
  ParseOutcome &Outcome;
  std::unique_ptr<matchers::InstantiationRecorder> Recorder;
};

/// Takes out of a parse's invocation whatever would load code or write a file,
/// however the command spelt it (-Xclang, -Xpreprocessor, a driver alias):
/// dependency files, header lists, statistics, time traces, diagnostic logs and
/// serialized diagnostics, plugins and LLVM options. The command translation
/// refuses the usual spellings aloud; this is the guarantee.
void makeReadOnly(clang::CompilerInvocation &Inv) {
  Inv.getDependencyOutputOpts() = clang::DependencyOutputOptions();
  clang::FrontendOptions &FO = Inv.getFrontendOpts();
  FO.OutputFile.clear();
  FO.StatsFile.clear();
  FO.TimeTracePath.clear();
  FO.Plugins.clear();
  FO.AddPluginActions.clear();
  FO.PluginArgs.clear();
  FO.ActionName.clear();
  FO.LLVMArgs.clear();
  Inv.getCodeGenOpts().PassPlugins.clear();
  Inv.getDiagnosticOpts().DiagnosticLogFile.clear();
  Inv.getDiagnosticOpts().DiagnosticSerializationFile.clear();
}

/// Runs the actions \p Create makes (told what the parse loads),
/// loading the file's preamble when \p Env has a store for them, else the
/// precompiled CUDA runtime headers when it has a store for those.
class PchActionFactory : public clang::tooling::FrontendActionFactory {
public:
  /// \p SharedIncludes: the unit's #include lines to load precompiled with
  /// the runtime headers (UnitJob::SharedIncludes).
  PchActionFactory(
      std::function<std::unique_ptr<clang::FrontendAction>(LoadedHeaders)>
          Create,
      const ParseEnvironment &Env, std::vector<std::string> SharedIncludes = {})
      : Create(std::move(Create)), Store(Env.Pch), Preambles(Env.Preambles),
        Unsaved(Env.Unsaved), SharedIncludes(std::move(SharedIncludes)),
        FastPathStarts(Env.FastPathStarts) {}
  /// The action is told whether what the parse loads holds the file's own
  /// headers (a preamble, or a precompiled prefix of its #include lines): its
  /// traversal then covers them; for a prefix, with its record of what to
  /// visit.
  std::unique_ptr<clang::FrontendAction> create() override {
    if (loadedAnything() && FastPathStarts)
      FastPathStarts();
    LoadedHeaders Loaded;
    if (UsedPreamble) {
      Loaded.OwnHeaders = true;
    } else if (llvm::sys::path::filename(UsedPch).starts_with("prefix-")) {
      Loaded.OwnHeaders = true;
      Loaded.PrefixScope = Store->scope(UsedPch);
    }
    return Create(std::move(Loaded));
  }
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> Ops,
                     clang::DiagnosticConsumer *Diags) override {
    makeReadOnly(*Invocation);
    if (Preambles) {
      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
          Files->getVirtualFileSystemPtr();
      UsedPreamble = Preambles->use(*Invocation, FS, Unsaved);
      if (UsedPreamble) {
        // The preamble lives in memory, in a file system of its own over the
        // parse's.
        auto WithPreamble = llvm::makeIntrusiveRefCnt<clang::FileManager>(
            Files->getFileSystemOpts(), FS);
        return FrontendActionFactory::runInvocation(
            std::move(Invocation), WithPreamble.get(), std::move(Ops), Diags);
      }
    }
    if (Store)
      UsedPch = Store->use(*Invocation, SharedIncludes);
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(Ops), Diags);
  }
  /// Whether a failed parse is to be run again without what it loaded. Always
  /// for the precompiled runtime headers (one of the system headers behind them
  /// may have changed). A preamble was checked against its files before the
  /// parse and built without an error: errors in the file itself are the file's
  /// (the editor's buffer while it is being typed, most often), and only the
  /// others make the parse run again.
  ///
  /// The precompiled runtime headers are at fault only when an error is in a
  /// runtime header or has no place (a header changed since they were built is
  /// a fatal error without one): errors in the unit's own code are the unit's,
  /// a missing #include of its own too, and a second parse would only repeat
  /// them.
  bool retryWithout(const std::vector<Diagnostic> &Errors,
                    const std::string &MainFile,
                    const ParseEnvironment &Env) const {
    if (!UsedPch.empty()) {
      for (const Diagnostic &D : Errors) {
        llvm::StringRef File = D.Loc.File;
        if (File.empty() ||
            (!Env.Toolkit.Path.empty() && File.starts_with(Env.Toolkit.Path)) ||
            (!Env.ClangResourceDir.empty() &&
             File.starts_with(Env.ClangResourceDir)) ||
            llvm::StringRef(D.Message).contains("precompiled"))
          return true;
      }
      return false;
    }
    if (!UsedPreamble)
      return false;
    const llvm::StringRef Name = llvm::sys::path::filename(MainFile);
    for (const Diagnostic &D : Errors)
      if (!D.Loc.File.empty() && llvm::sys::path::filename(D.Loc.File) == Name)
        return false;
    return true;
  }
  /// Whether Clang rejected the precompiled header the parse loaded (out of
  /// date, damaged).
  bool rejected(const std::vector<Diagnostic> &Errors) const {
    return !UsedPch.empty() &&
           std::any_of(Errors.begin(), Errors.end(), [](const Diagnostic &D) {
             return llvm::StringRef(D.Message).contains("precompiled");
           });
  }
  /// Whether the parse loaded a precompiled header or a preamble.
  bool loadedAnything() const {
    return !UsedPch.empty() || UsedPreamble != nullptr;
  }
  /// Forgets what the parse loaded: a parse without it did better.
  void discard() {
    if (!UsedPch.empty())
      Store->discard(UsedPch);
    if (UsedPreamble)
      Preambles->discard(UsedPreamble);
  }
  /// Adds what the parse loaded, and the files behind it, to \p Inputs.
  void addInputs(std::vector<std::string> &Inputs) const {
    if (!UsedPch.empty()) {
      Inputs.push_back(UsedPch);
      const std::vector<std::string> More = Store->inputs(UsedPch);
      Inputs.insert(Inputs.end(), More.begin(), More.end());
      std::sort(Inputs.begin(), Inputs.end());
      Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
    }
    if (UsedPreamble) {
      const std::vector<std::string> &More =
          PreambleStore::inputs(*UsedPreamble);
      Inputs.insert(Inputs.end(), More.begin(), More.end());
      std::sort(Inputs.begin(), Inputs.end());
      Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
    }
  }

private:
  std::function<std::unique_ptr<clang::FrontendAction>(LoadedHeaders)> Create;
  HeaderPchStore *Store;
  PreambleStore *Preambles;
  const std::map<std::string, std::string> &Unsaved;
  std::string
      UsedPch; ///< The precompiled header the parse loaded ("" if none).
  std::shared_ptr<const Preamble>
      UsedPreamble; ///< The preamble it loaded (null if none).
  std::vector<std::string> SharedIncludes; ///< UnitJob::SharedIncludes.
  std::function<void()> FastPathStarts; ///< ParseEnvironment's.
};

/// The host-side parse: launches and attribute calls only.
class HostConsumer : public clang::ASTConsumer {
public:
  HostConsumer(std::vector<HostKernelCalls> &Out,
               std::vector<std::string> &Inputs, LoadedHeaders Loaded,
               ParseOutcome &Outcome)
      : Out(Out), Inputs(Inputs), TopLevel(std::move(Loaded)),
        Outcome(Outcome) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    TopLevel.add(Group);
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    Inputs = filesRead(Ctx.getSourceManager());
    // Launches in code without errors are real whatever else is broken.
    TopLevel.limitTraversal(Ctx);
    clang::ast_matchers::MatchFinder Finder;
    matchers::LaunchCollector Launches;
    Launches.registerMatchers(Finder);
    const bool Fix = Outcome.AllowFixups && !Outcome.Errors->errors().empty();
    SharedVarList Shared;
    if (Fix)
      Shared.registerMatchers(Finder);
    Finder.matchAST(Ctx);
    if (Fix) {
      Outcome.Fixups = sourceFixups(Ctx, Outcome.Errors->reported(),
                                    Shared.Vars, Outcome.Relocatable);
      if (!Outcome.Fixups.empty())
        return;
    }
    Out = matchers::hostKernelCalls(Ctx, Launches);
  }

private:
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
  CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<HostConsumer>(Out, Inputs, Loaded, Outcome);
  }

private:
  std::vector<HostKernelCalls> &Out;
  std::vector<std::string> &Inputs;
  LoadedHeaders Loaded;
  ParseOutcome &Outcome;
};

Diagnostic inputError(const std::string &File, std::string Message) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = std::string(checkInfo(CheckId::Input).Name);
  D.Message = std::move(Message);
  D.Loc.File = File;
  return D;
}

/// The error of opening something that is not a regular file.
class NotRegularCategory : public std::error_category {
  const char *name() const noexcept override { return "tilefit"; }
  std::string message(int) const override {
    return "not a regular file (tilefit reads no FIFO or device)";
  }
};
std::error_code notRegularFile() {
  static const NotRegularCategory Category;
  return std::error_code(1, Category);
}

/// The disk, where only regular files can be opened: opening a FIFO blocks
/// until something writes to it, and reading a device such as /dev/zero never
/// ends. A source or an #include naming one is then Clang's "cannot open file"
/// error, never a hang.
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override {
    llvm::ErrorOr<llvm::vfs::Status> S = status(Path);
    if (!S)
      return S.getError();
    if (S->getType() != llvm::sys::fs::file_type::regular_file)
      return notRegularFile();
    return ProxyFileSystem::openFileForRead(Path);
  }
};

/// The files a parse sees: the disk, under the unsaved buffers. One per parse:
/// the working folder is per parse.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemFor(const ParseEnvironment &Env, const std::string &Directory) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      llvm::makeIntrusiveRefCnt<RegularFilesOnly>(
          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(
              llvm::vfs::createPhysicalFileSystem().release()));
  if (!Env.Unsaved.empty()) {
    auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    for (const auto &[Path, Text] : Env.Unsaved)
      Memory->addFile(Path, /*ModificationTime=*/0,
                      llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
    auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(FS);
    Overlay->pushOverlay(Memory);
    FS = Overlay;
  }
  FS->setCurrentWorkingDirectory(Directory);
  return FS;
}

/// `-D__CUDACC_VER_MAJOR__=13` and the rest, from the toolkit's version (as
/// nvcc defines them: major, minor and nvcc's build, and the runtime API's
/// major and minor).
std::vector<std::string> nvccVersionMacros(const CudaToolkit &TK) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  llvm::StringRef(TK.NvccVersion.empty() ? TK.Version : TK.NvccVersion)
      .split(Parts, '.');
  if (Parts.size() < 2)
    return {};
  std::vector<std::string> Out = {"-D__CUDACC_VER_MAJOR__=" + Parts[0].str(),
                                  "-D__CUDACC_VER_MINOR__=" + Parts[1].str()};
  if (Parts.size() > 2)
    Out.push_back("-D__CUDACC_VER_BUILD__=" + Parts[2].str());
  Out.push_back("-D__CUDA_API_VER_MAJOR__=" + Parts[0].str());
  Out.push_back("-D__CUDA_API_VER_MINOR__=" + Parts[1].str());
  return Out;
}

std::string join(const std::vector<unsigned> &V) {
  std::string S;
  for (unsigned X : V)
    S += (S.empty() ? "" : ",") + std::to_string(X);
  return S;
}

} // namespace

/// The facts of a unit Clang crashed on: none, and the error that says so.
static TranslationUnitFacts crashedFacts(const UnitJob &Job) {
  TranslationUnitFacts Crashed;
  Crashed.File = Job.Command.File;
  Crashed.Arch = Job.Target.Real;
  Crashed.ParsedAs = clangArchFor(Job.Target.Real);
  Crashed.Failed = true;
  Diagnostic D =
      inputError(Job.Command.File,
                 "Clang crashed while parsing '" + Job.Command.File + "' for " +
                     Job.Target.Real + "; no figures for this unit");
  D.Arch = Job.Target.Real;
  Crashed.Diagnostics.push_back(std::move(D));
  return Crashed;
}

/// analyzeUnit, with a crash of Clang (or of tilefit's walk) contained to the
/// unit.
static TranslationUnitFacts analyzeUnitSafely(const UnitJob &Job,
                                              const ParseEnvironment &Env) {
  TranslationUnitFacts Facts;
  llvm::CrashRecoveryContext CRC;
  if (CRC.RunSafely([&] { Facts = analyzeUnit(Job, Env); }))
    return Facts;
  return crashedFacts(Job);
}

/// \p Env without its fast paths: no precompiled headers, no preambles.
static ParseEnvironment withoutFastPaths(const ParseEnvironment &Env) {
  ParseEnvironment Plain = Env;
  Plain.Pch = nullptr;
  Plain.Preambles = nullptr;
  return Plain;
}

std::string clangArchFor(const std::string &Target) {
  if (clang::StringToOffloadArch(Target) != clang::OffloadArch::UNKNOWN)
    return Target;
  return "sm_90";
}

std::vector<UnitJob> planJobs(const std::vector<CompileCommand> &Commands,
                              const std::vector<std::string> &ArchOverride) {
  std::vector<UnitJob> Jobs;
  for (const CompileCommand &C : Commands) {
    DeviceFlags Flags = translateCommand(C);
    std::vector<DeviceTarget> Targets;
    if (!ArchOverride.empty()) {
      for (const std::string &A : ArchOverride)
        if (auto P = parseArch(A))
          Targets.push_back({P->name(), P->cudaArchMacro()});
    } else if (!Flags.Targets.empty()) {
      Targets = Flags.Targets;
    } else {
      auto P = parseArch(DefaultArch);
      Targets.push_back({P->name(), P->cudaArchMacro()});
    }
    std::set<unsigned> List;
    for (const DeviceTarget &T : Targets)
      List.insert(T.CudaArch);
    for (const DeviceTarget &T : Targets) {
      UnitJob J;
      J.Command = C;
      J.Flags = Flags;
      J.Target = T;
      J.ArchList.assign(List.begin(), List.end());
      Jobs.push_back(std::move(J));
    }
  }
  return Jobs;
}

std::vector<std::string> parseCommandLine(const UnitJob &Job,
                                          const ParseEnvironment &Env,
                                          bool HostSide) {
  const std::string ClangArch = clangArchFor(Job.Target.Real);
  std::vector<std::string> Args = {"clang++",
                                   "-x",
                                   "cuda",
                                   HostSide ? "--cuda-host-only"
                                            : "--cuda-device-only",
                                   "--cuda-gpu-arch=" + ClangArch,
                                   "-nocudalib"};
  if (!Env.ClangResourceDir.empty())
    Args.push_back("-resource-dir=" + Env.ClangResourceDir);
  Args.insert(Args.end(), Job.Flags.ClangArgs.begin(),
              Job.Flags.ClangArgs.end());

  const CudaToolkit &TK = Env.Toolkit;
  if (TK.found()) {
    Args.push_back("--cuda-path=" + TK.Path);
    const std::string Inc = TK.Path + "/include";
    // CUDA 13 moved CCCL (cub, thrust, cuda/) under include/cccl.
    if (TK.HasCccl) {
      Args.push_back("-isystem");
      Args.push_back(Inc + "/cccl");
    }
    // CUDA 13 dropped headers Clang 19's CUDA wrapper still includes
    // (texture_fetch_functions.h, surface_functions.h); tilefit ships empty
    // stand-ins, searched after every other folder so that the toolkit's own
    // headers of the same names (texture_indirect_functions.h) win.
    Args.push_back("-idirafter");
    Args.push_back(Env.ResourceInclude + "/cuda-compat");
    Args.push_back("-Wno-unknown-cuda-version");
    // nvcc's version macros, which code tests to enable what a toolkit supports
    // (`#if
    // __CUDACC_VER_MAJOR__ >= 12`: CUTLASS's SM90 paths, say). Clang defines
    // none of them; the toolkit's headers read them only under nvcc or NVRTC
    // (__NVCC__, __CUDACC_RTC__, which tilefit leaves undefined), CCCL takes
    // Clang's version from CUDA_VERSION.
    for (const std::string &Define : nvccVersionMacros(TK))
      Args.push_back(Define);
    // The rest of what nvcc defines in every pass (its --dryrun): pragma and
    // atomic built-in support (the built-ins are the compatibility header's),
    // and the device side's math. Not __NVCC__: the toolkit's headers (CCCL,
    // <nv/target>) would take nvcc's code paths, which Clang does not parse;
    // README.md, "Limits", says so.
    Args.push_back("-D__NVCC_DIAG_PRAGMA_SUPPORT__=1");
    if (Env.NvccCompatibility)
      Args.push_back("-D__CUDACC_DEVICE_ATOMIC_BUILTINS__=1");
    if (!HostSide)
      Args.push_back("-DCUDA_DOUBLE_MATH_FUNCTIONS");
    // A toolkit newer than Clang knows (CUDA 13 for Clang 19) leaves Clang
    // without an SDK version, and it then expects the pre-9.2 launch API
    // (cudaConfigureCall) for `<<<>>>`.
    if (clang::CudaStringToVersion(TK.Version) == clang::CudaVersion::UNKNOWN) {
      Args.push_back("-Xclang");
      Args.push_back(
          std::string("-target-sdk-version=") +
          clang::CudaVersionToString(clang::CudaVersion::PARTIALLY_SUPPORTED));
    }
  } else {
    // No toolkit: keywords, builtin variables and vector types from tilefit's
    // prelude.
    Args.push_back("-nocudainc");
    Args.push_back("-include");
    Args.push_back(Env.ResourceInclude + "/tilefit/cuda_prelude.h");
  }
  // What nvcc's headers declare and Clang's lack (cache-hinted loads, host
  // min/max, surface functions): resources/include/tilefit/cuda_compat.h, over
  // the toolkit's headers.
  if (TK.found() && Env.NvccCompatibility) {
    Args.push_back("-include");
    Args.push_back(Env.ResourceInclude + "/tilefit/cuda_compat.h");
  }
  // The shared-constructor fix-up's spelling of `__shared__` (SourceFixups.h),
  // with or without a toolkit; it relies on `register`, which C++17 forbids and
  // nvcc only warns about.
  Args.push_back(std::string("-D") + SharedRegisterMacro + "=" +
                 SharedRegisterDefinition);
  Args.push_back("-Wno-register");
  if (Job.Flags.Rdc && Job.Flags.IsNvcc)
    Args.push_back("-D__CUDACC_RDC__");
  // nvcc's macros that Clang does not define, and the target's own
  // __CUDA_ARCH__ when Clang parses it as another architecture.
  Args.push_back("-D__CUDA_ARCH_LIST__=" + join(Job.ArchList));
  auto Real = parseArch(Job.Target.Real);
  if (HostSide) {
    // Host code sees no __CUDA_ARCH__; nothing else to set.
  } else if (ClangArch != Job.Target.Real || !Real ||
             Real->cudaArchMacro() != Job.Target.CudaArch) {
    Args.push_back("-U__CUDA_ARCH__");
    Args.push_back("-D__CUDA_ARCH__=" + std::to_string(Job.Target.CudaArch));
  }
  // An arch- or family-specific target (sm_90a, sm_100f): nvcc's feature
  // macros. Clang 19 defines only __CUDA_ARCH_FEAT_SM90_ALL, and only for the
  // sm_90a it knows.
  if (!HostSide && Real && Real->Suffix) {
    const std::string N = std::to_string(Real->Number);
    if (Real->Suffix == 'a') {
      if (ClangArch != Job.Target.Real)
        Args.push_back("-D__CUDA_ARCH_FEAT_SM" + N + "_ALL=1");
      Args.push_back("-D__CUDA_ARCH_SPECIFIC__=" +
                     std::to_string(Real->cudaArchMacro()));
    }
    Args.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" +
                   std::to_string(Real->cudaArchMacro()));
  }
  // No C++20 named modules (nvcc has none): with them on, as -std=c++20 turns
  // them on, Clang 19 loses the host declarations of the aligned global
  // operator new a precompiled header holds (<new>'s, included by the runtime
  // headers), finds only the implicit __device__ one, and crashed in
  // Sema::ActOnCXXDelete on the next libstdc++ header that deletes (<iomanip>,
  // <iostream>). Every parse is given it, precompiled or not, so the fast
  // paths parse as the plain one does.
  // (The driver does not pass its -fno-cxx-modules on: said to the front end.)
  Args.push_back("-Xclang");
  Args.push_back("-fno-cxx-modules");
  // A narrowing conversion in braced initialization (`coord c = {blockIdx.z,
  // ...}` with int fields) is nvcc's warning 2361-D and Clang's error: a
  // warning here too, so the kernel keeps its figures.
  Args.push_back("-Wno-c++11-narrowing");
  Args.push_back("-fsyntax-only");
  Args.push_back("-w");
  // A unit with errors is analysed as Clang built it: let it report them all
  // (past the limit Clang reports none, and what follows counts as touched by
  // the errors).
  Args.push_back("-ferror-limit=200");
  // No "N errors generated" on stderr: tilefit reports the errors itself.
  Args.push_back("-fno-caret-diagnostics");
  Args.push_back(Job.Command.File);
  return Args;
}

/// The code a fix-up adds at the end of a unit names a kernel template's
/// specialization as the source wrote it; where that name means nothing there,
/// the error is tilefit's, not the unit's: it becomes a warning that the kernel
/// is not reported.
static void forgiveAppendedErrors(TranslationUnitFacts &Facts,
                                  const std::vector<TextEdit> &Edits,
                                  const ParseEnvironment &Env) {
  for (const TextEdit &E : Edits) {
    if (E.Length != 0 ||
        E.Replacement.find(AppendedPrefix) == std::string::npos)
      continue;
    std::optional<std::string> Original = readSource(Env, E.File);
    if (!Original)
      continue;
    const size_t End = std::min<size_t>(E.Offset, Original->size());
    const unsigned Lines =
        1 + static_cast<unsigned>(
                std::count(Original->begin(), Original->begin() + End, '\n'));
    for (Diagnostic &D : Facts.Diagnostics)
      if (D.Level == Severity::Error &&
          D.Check == checkInfo(CheckId::ClangError).Name &&
          D.Loc.File == E.File && D.Loc.Line > Lines) {
        D.Level = Severity::Warning;
        D.Check = checkInfo(CheckId::Input).Name;
        D.Notes.insert(D.Notes.begin(), {D.Message, E.What.Loc});
        D.Message = "a kernel template that only device code launches here "
                    "could not be "
                    "instantiated by tilefit: ptxas compiles it, tilefit does "
                    "not report it";
        D.Loc = E.What.Loc;
      }
  }
  for (const TextEdit &E : Edits)
    if (E.What.Rule == UninstantiatedLaunchRule) {
      Diagnostic D;
      D.Level = Severity::Warning;
      D.Check = checkInfo(CheckId::Input).Name;
      D.Message =
          "a kernel template launched from device code inside a template "
          "instantiation is not instantiated by tilefit: ptxas compiles it, "
          "tilefit "
          "does not report it";
      D.Loc = E.What.Loc;
      D.Arch = Facts.Arch;
      Facts.Diagnostics.push_back(std::move(D));
    }
  const bool StillErrors = std::any_of(
      Facts.Diagnostics.begin(), Facts.Diagnostics.end(),
      [](const Diagnostic &D) { return D.Level == Severity::Error; });
  if (Facts.Partial && !StillErrors) {
    Facts.Partial = false;
    for (KernelFacts &K : Facts.Kernels)
      K.Error.reset();
  }
}

/// How many times a unit is parsed again with source fix-ups: one construct can
/// hide another (an instantiation whose body Clang drops for one error hides
/// the next).
constexpr unsigned FixupRounds = 3;

/// analyzeUnit; a unit whose errors are constructs nvcc accepts is parsed again
/// with them rewritten (SourceFixups.h), up to \p FixupsLeft times.
static TranslationUnitFacts analyzeUnitWith(const UnitJob &Job,
                                            const ParseEnvironment &Env,
                                            unsigned FixupsLeft) {
  TranslationUnitFacts Facts;
  Facts.File = Job.Command.File;
  Facts.Arch = Job.Target.Real;
  Facts.ParsedAs = clangArchFor(Job.Target.Real);
  Facts.Jit = Job.Target.Jit;
  Facts.MaxRegisters = Job.Flags.MaxRegisters;
  Facts.RelocatableDeviceCode = Job.Flags.Rdc;

  // The source must be a readable regular file (or an unsaved buffer).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      fileSystemFor(Env, Job.Command.Directory);
  llvm::ErrorOr<llvm::vfs::Status> Status = FS->status(Job.Command.File);
  if (!Status) {
    Facts.Failed = true;
    Facts.Diagnostics.push_back(
        inputError(Job.Command.File, "cannot read '" + Job.Command.File +
                                         "': " + Status.getError().message()));
    return Facts;
  }
  if (!Status->isRegularFile()) {
    Facts.Failed = true;
    Facts.Diagnostics.push_back(inputError(
        Job.Command.File, "'" + Job.Command.File + "' is not a regular file"));
    return Facts;
  }
  if (auto Open = FS->openFileForRead(Job.Command.File); !Open) {
    Facts.Failed = true;
    Facts.Diagnostics.push_back(
        inputError(Job.Command.File, "cannot read '" + Job.Command.File +
                                         "': " + Open.getError().message()));
    return Facts;
  }
  if (!Job.Flags.IsCuda) {
    Facts.Failed = true;
    Facts.Diagnostics.push_back(inputError(
        Job.Command.File,
        "'" + Job.Command.File +
            "' is not a CUDA source (no .cu extension and no '-x cuda')"));
    return Facts;
  }

  clang::FileSystemOptions FSOpts;
  FSOpts.WorkingDir = Job.Command.Directory;
  auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(FSOpts, FS);

  std::vector<Diagnostic> Problems;
  ErrorCollector Errors(Problems);
  ParseOutcome Outcome;
  Outcome.Errors = &Errors;
  Outcome.AllowFixups = FixupsLeft > 0;
  Outcome.Relocatable = Job.Flags.Rdc;
  Outcome.ResourceInclude = Env.ResourceInclude;
  // The shared #include lines only over the files on disk: a rewritten or
  // unsaved header would be read from the precompiled one instead.
  PchActionFactory Factory(
      [&Facts, &Outcome](LoadedHeaders Loaded) {
        return std::make_unique<CollectAction>(Facts, std::move(Loaded),
                                               Outcome);
      },
      Env,
      Env.Unsaved.empty() ? Job.SharedIncludes : std::vector<std::string>());
  clang::tooling::ToolInvocation Invocation(
      parseCommandLine(Job, Env), &Factory, Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Errors);
  bool Ok = false;
  llvm::CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] { Ok = Invocation.run(); })) {
    // A crash on a fast path (a precompiled header, a prefix, a preamble)
    // is the fast path's: the plain parse decides, and loses nothing.
    if (!Factory.loadedAnything())
      return crashedFacts(Job);
    TranslationUnitFacts Again =
        analyzeUnitWith(Job, withoutFastPaths(Env), FixupsLeft);
    // What was loaded is kept: built again, it would crash the same way, at
    // the cost of a build on top of the second parse.
    if (Env.FastPathCrashed)
      Env.FastPathCrashed(
          "Clang crashed parsing '" + Job.Command.File + "' for " +
          Job.Target.Real +
          " with what was precompiled for it (runtime headers, #include "
          "prefix or preamble); it was parsed again without that" +
          (Again.Failed ? std::string() : ", and nothing is lost"));
    return Again;
  }
  if ((!Ok || Errors.getNumErrors() > 0) &&
      Factory.retryWithout(Problems, Job.Command.File, Env)) {
    // The parse without the precompiled header or preamble decides; either is
    // built anew next time if it was at fault: Clang rejected it, or the parse
    // has no error without it. (A unit with errors of its own would otherwise
    // keep a rejected header, and parse twice, for good.)
    TranslationUnitFacts Again =
        analyzeUnitWith(Job, withoutFastPaths(Env), FixupsLeft);
    if ((!Again.Failed && !Again.Partial) || Factory.rejected(Problems))
      Factory.discard();
    return Again;
  }
  if (!Outcome.Fixups.empty()) {
    // Parse again, the rewritten files in memory over the disk (as an editor's
    // buffers are).
    ParseEnvironment Fixed = Env;
    for (const auto &[File, Edits] : editsByFile(Outcome.Fixups)) {
      std::optional<std::string> Text = readSource(Env, File);
      if (Text)
        Fixed.Unsaved[File] = applyEdits(std::move(*Text), Edits);
    }
    TranslationUnitFacts Again = analyzeUnitWith(Job, Fixed, FixupsLeft - 1);
    forgiveAppendedErrors(Again, Outcome.Fixups, Env);
    for (const TextEdit &E : Outcome.Fixups)
      if (std::none_of(Again.Fixups.begin(), Again.Fixups.end(),
                       [&](const SourceFixup &F) {
                         return F.Rule == E.What.Rule &&
                                F.Loc.File == E.What.Loc.File &&
                                F.Loc.Line == E.What.Loc.Line &&
                                F.Loc.Column == E.What.Loc.Column;
                       }))
        Again.Fixups.push_back(E.What);
    return Again;
  }
  Facts.Diagnostics.insert(Facts.Diagnostics.begin(), Problems.begin(),
                           Problems.end());
  Facts.Diagnostics.insert(Facts.Diagnostics.end(), Outcome.NvccOnly.begin(),
                           Outcome.NvccOnly.end());
  Facts.SkippedHostCalls = Outcome.SkippedHostCalls;
  Factory.addInputs(Facts.Inputs);
  if (!Ok || Errors.getNumErrors() > 0) {
    // What Clang built is analysed all the same (KernelFacts::Error marks the
    // kernels the errors may have changed); a parse that produced nothing at
    // all failed.
    Facts.Partial = true;
    Facts.ParseStopped = Errors.stopped();
    if (Facts.Diagnostics.empty()) {
      Facts.Failed = true;
      Facts.Partial = false;
      Facts.Vars.clear();
      Facts.Kernels.clear();
      Facts.Diagnostics.push_back(
          inputError(Job.Command.File,
                     "Clang could not parse '" + Job.Command.File + "'"));
    }
    for (Diagnostic &D : Facts.Diagnostics) {
      D.Arch = Facts.Arch;
      if (D.Loc.File.empty())
        D.Loc.File = Job.Command.File;
    }
  }
  return Facts;
}

TranslationUnitFacts analyzeUnit(const UnitJob &Job,
                                 const ParseEnvironment &Env) {
  return analyzeUnitWith(Job, Env, Env.NvccCompatibility ? FixupRounds : 0);
}

std::optional<std::string> readSource(const ParseEnvironment &Env,
                                      const std::string &File) {
  auto It = Env.Unsaved.find(File);
  if (It != Env.Unsaved.end())
    return It->second;
  // Only a regular file: opening a FIFO would block.
  if (!llvm::sys::fs::is_regular_file(File))
    return std::nullopt;
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

/// analyzeHostSide; \p FixupsLeft as for analyzeUnitWith.
static std::vector<HostKernelCalls>
analyzeHostSideWith(const UnitJob &Job, const ParseEnvironment &Env,
                    std::vector<Diagnostic> &Problems,
                    std::vector<std::string> *Inputs, unsigned FixupsLeft) {
  std::vector<HostKernelCalls> Calls;
  std::vector<std::string> Read;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      fileSystemFor(Env, Job.Command.Directory);
  clang::FileSystemOptions FSOpts;
  FSOpts.WorkingDir = Job.Command.Directory;
  auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(FSOpts, FS);
  std::vector<Diagnostic> Errors;
  ErrorCollector Collector(Errors);
  ParseOutcome Outcome;
  Outcome.Errors = &Collector;
  Outcome.AllowFixups = FixupsLeft > 0;
  Outcome.Relocatable = Job.Flags.Rdc;
  PchActionFactory Factory(
      [&](LoadedHeaders Loaded) {
        return std::make_unique<HostAction>(Calls, Read, std::move(Loaded),
                                            Outcome);
      },
      Env);
  clang::tooling::ToolInvocation Invocation(
      parseCommandLine(Job, Env, /*HostSide=*/true), &Factory, Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Collector);
  llvm::CrashRecoveryContext CRC;
  bool Ok = false;
  const bool Ran = CRC.RunSafely([&] { Ok = Invocation.run(); });
  if ((!Ran || !Ok || Collector.getNumErrors() > 0) &&
      (!Ran ? Factory.loadedAnything()
            : Factory.retryWithout(Errors, Job.Command.File, Env))) {
    // The parse without the precompiled header or preamble decides.
    size_t Before = Problems.size();
    auto Again = analyzeHostSideWith(Job, withoutFastPaths(Env), Problems,
                                     Inputs, FixupsLeft);
    if (Problems.size() == Before || Factory.rejected(Errors))
      Factory.discard();
    return Again;
  }
  if (Ran && !Outcome.Fixups.empty()) {
    ParseEnvironment Fixed = Env;
    for (const auto &[File, Edits] : editsByFile(Outcome.Fixups))
      if (std::optional<std::string> Text = readSource(Env, File))
        Fixed.Unsaved[File] = applyEdits(std::move(*Text), Edits);
    return analyzeHostSideWith(Job, Fixed, Problems, Inputs, FixupsLeft - 1);
  }
  Factory.addInputs(Read);
  if (!Ran || !Ok || Collector.getNumErrors() > 0) {
    Diagnostic D = inputError(
        Job.Command.File,
        Ran ? "the host-side parse of '" + Job.Command.File +
                  "' had errors; launches in host code the device-side parse "
                  "cannot see (under "
                  "#ifndef __CUDA_ARCH__) are not counted where the errors are"
            : "the host-side parse of '" + Job.Command.File +
                  "' failed; launches in host code the device-side parse "
                  "cannot see (under "
                  "#ifndef __CUDA_ARCH__) are not counted");
    D.Level = Severity::Warning;
    if (!Errors.empty())
      D.Notes.push_back({Errors.front().Message, Errors.front().Loc});
    Problems.push_back(std::move(D));
    if (!Ran)
      return {};
    return Calls;
  }
  if (Inputs)
    *Inputs = std::move(Read);
  return Calls;
}

std::vector<HostKernelCalls> analyzeHostSide(const UnitJob &Job,
                                             const ParseEnvironment &Env,
                                             std::vector<Diagnostic> &Problems,
                                             std::vector<std::string> *Inputs) {
  return analyzeHostSideWith(Job, Env, Problems, Inputs,
                             Env.NvccCompatibility ? FixupRounds : 0);
}

void mergeHostCalls(TranslationUnitFacts &Facts,
                    const std::vector<HostKernelCalls> &Host) {
  auto Same = [](const SourcePos &A, const SourcePos &B) {
    return A.File == B.File && A.Line == B.Line && A.Column == B.Column;
  };
  for (KernelFacts &K : Facts.Kernels)
    for (const HostKernelCalls &H : Host) {
      if (H.Mangled != K.Mangled)
        continue;
      for (const LaunchSite &L : H.Launches)
        if (std::none_of(
                K.Launches.begin(), K.Launches.end(),
                [&](const LaunchSite &Seen) { return Same(Seen.Loc, L.Loc); }))
          K.Launches.push_back(L);
      for (const AttributeCall &A : H.Attributes)
        if (std::none_of(K.Attributes.begin(), K.Attributes.end(),
                         [&](const AttributeCall &Seen) {
                           return Same(Seen.Loc, A.Loc);
                         }))
          K.Attributes.push_back(A);
      auto ByPosition = [](const auto &X, const auto &Y) {
        return std::tie(X.Loc.File, X.Loc.Line, X.Loc.Column) <
               std::tie(Y.Loc.File, Y.Loc.Line, Y.Loc.Column);
      };
      std::stable_sort(K.Launches.begin(), K.Launches.end(), ByPosition);
      std::stable_sort(K.Attributes.begin(), K.Attributes.end(), ByPosition);
    }
}

namespace {

/// One analyzeAll: the jobs' groups (one command's jobs, one per architecture,
/// share a host-side parse), which are final, and the hand-over of their facts.
class FactsPipeline {
public:
  FactsPipeline(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
                const ProgressFn &Progress, const FactsConsumer &Consume,
                bool KeepInputs)
      : Jobs(Jobs), Env(Env), Progress(Progress), Consume(Consume),
        KeepInputs(KeepInputs), Results(Jobs.size()), Keys(Jobs.size()),
        Cached(Jobs.size(), 0), Group(Jobs.size()) {
    std::map<std::pair<std::string, std::vector<std::string>>, size_t> GroupOf;
    for (size_t I = 0; I < Jobs.size(); ++I) {
      auto [It, New] = GroupOf.try_emplace(
          {Jobs[I].Command.File, Jobs[I].Command.Arguments}, Members.size());
      if (New)
        Members.emplace_back();
      Group[I] = It->second;
      Members[It->second].push_back(I);
    }
    Groups.resize(Members.size());
    Cache = Env.Unsaved.empty() ? Env.Cache : nullptr;
    findSharedIncludes();
  }

  /// Earlier parses of the same command over the same files: their facts are
  /// final.
  void lookUpCache() {
    for (size_t I = 0; Cache && I < Jobs.size(); ++I) {
      std::optional<std::string> Main = readSource(Env, Jobs[I].Command.File);
      if (!Main || !Jobs[I].Flags.IsCuda)
        continue;
      // Whether the host-side parse runs follows from the files alone: its
      // command line is part of every key.
      std::vector<std::vector<std::string>> Lines = {
          parseCommandLine(Jobs[I], Env),
          parseCommandLine(Jobs[I], Env, /*HostSide=*/true)};
      Keys[I] = ResultCache::key(Lines, *Main);
      if (std::optional<TranslationUnitFacts> Hit = Cache->lookup(Keys[I])) {
        Cached[I] = 1;
        progress(I);
        hand(I, std::move(*Hit));
      }
    }
    for (size_t G = 0; G < Members.size(); ++G)
      for (size_t I : Members[G])
        Groups[G].Pending += !Cached[I];
  }

  /// The leading #include lines each job shares with another of the same
  /// options (IncludePrefix.h), to be precompiled once (HeaderPch.h); only with
  /// a store for them and over the files on disk. Group is set (the
  /// constructor's first step).
  void findSharedIncludes() {
    Shared.resize(Jobs.size());
    if (!Env.Pch || Env.Preambles || !Env.Unsaved.empty())
      return;
    std::vector<std::vector<std::string>> Includes(Jobs.size());
    std::vector<std::string> Options(Jobs.size());
    std::vector<size_t> Named(Jobs.size());
    for (size_t I = 0; I < Jobs.size(); ++I) {
      std::optional<std::string> Main = readSource(Env, Jobs[I].Command.File);
      if (!Main || !Jobs[I].Flags.IsCuda)
        continue;
      std::vector<std::string> Lines = leadingIncludes(*Main);
      Named[I] = namedIncludePrefix(Lines, Jobs[I].PrecompileIncludes);
      Includes[I] = resolvedIncludes(
          Lines, llvm::sys::path::parent_path(Jobs[I].Command.File));
      for (const std::string &A : parseCommandLine(Jobs[I], Env))
        if (A != Jobs[I].Command.File)
          Options[I] += A + "\n";
    }
    // A run of one command (one file, checked again and again, as in an edit
    // loop or a CI job) has its own lines precompiled: the next run loads them.
    const bool OneCommand = std::all_of(Group.begin(), Group.end(),
                                        [](size_t G) { return G == 0; });
    Shared = sharedIncludePrefixes(
        Includes, Options, Env.PrecompileSoleIncludes || OneCommand, Named);
  }

  bool cached(size_t I) const { return Cached[I]; }
  size_t groups() const { return Members.size(); }

  /// The device-side parse of job \p I; its group is final when it was the last
  /// one and no host-side parse is needed.
  void parse(size_t I) {
    if (Env.Cancelled && *Env.Cancelled) {
      Results[I].File = Jobs[I].Command.File;
      Results[I].Arch = Jobs[I].Target.Real;
      Results[I].Failed = true;
    } else {
      if (Shared[I].empty()) {
        Results[I] = analyzeUnitSafely(Jobs[I], Env);
      } else {
        UnitJob J = Jobs[I];
        J.SharedIncludes = Shared[I];
        Results[I] = analyzeUnitSafely(J, Env);
      }
      progress(I);
    }
    const size_t G = Group[I];
    bool Final;
    {
      std::lock_guard<std::mutex> Guard(Lock);
      // The device-side parses skipped code with launches (`#ifndef
      // __CUDA_ARCH__`): a host-side parse, after every device-side one; the
      // others saw every launch.
      if (!Results[I].Failed && Jobs[I].Flags.IsCuda &&
          Results[I].SkippedHostCalls)
        Groups[G].NeedsHost = true;
      Final = --Groups[G].Pending == 0 && !Groups[G].NeedsHost;
    }
    if (Final)
      finish(G, {}, {}, {});
  }

  bool needsHost(size_t G) const { return Groups[G].NeedsHost; }

  /// The host-side parse of group \p G, then its jobs are final.
  void parseHost(size_t G) {
    std::vector<HostKernelCalls> Host;
    std::vector<Diagnostic> Problems;
    std::vector<std::string> Inputs;
    if (!(Env.Cancelled && *Env.Cancelled))
      Host = analyzeHostSide(Jobs[Members[G].front()], Env, Problems, &Inputs);
    finish(G, Host, Problems, Inputs);
  }

  std::vector<TranslationUnitFacts> &results() { return Results; }

private:
  struct GroupState {
    size_t Pending = 0; ///< Device-side parses not done.
    bool NeedsHost = false;
  };

  void progress(size_t I) {
    if (Progress) {
      std::lock_guard<std::mutex> Guard(ProgressLock);
      Progress(++Done, Jobs.size(), Jobs[I]);
    }
  }

  /// Job \p I's facts are final: to the consumer, and gone from here.
  void hand(size_t I, TranslationUnitFacts &&Facts) {
    if (!KeepInputs)
      std::vector<std::string>().swap(Facts.Inputs);
    std::lock_guard<std::mutex> Guard(ConsumeLock);
    Consume(I, std::move(Facts));
  }

  void finish(size_t G, const std::vector<HostKernelCalls> &Host,
              const std::vector<Diagnostic> &HostProblems,
              const std::vector<std::string> &HostInputs) {
    for (size_t I : Members[G]) {
      if (Cached[I])
        continue;
      TranslationUnitFacts &F = Results[I];
      if (!F.Failed) {
        mergeHostCalls(F, Host);
        for (Diagnostic D : HostProblems) {
          D.Arch = F.Arch;
          F.Diagnostics.push_back(std::move(D));
        }
        // Stored only when complete: a failed host-side parse is not
        // remembered.
        if (Cache && !Keys[I].empty() && HostProblems.empty() &&
            !(Env.Cancelled && *Env.Cancelled)) {
          std::vector<std::string> Inputs = F.Inputs;
          Inputs.insert(Inputs.end(), HostInputs.begin(), HostInputs.end());
          std::sort(Inputs.begin(), Inputs.end());
          Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
          Cache->store(Keys[I], F, Inputs);
        }
      }
      hand(I, std::move(F));
      F = TranslationUnitFacts();
    }
  }

  const std::vector<UnitJob> &Jobs;
  const ParseEnvironment &Env;
  const ProgressFn &Progress;
  const FactsConsumer &Consume;
  const bool KeepInputs;
  ResultCache *Cache = nullptr;
  std::vector<TranslationUnitFacts> Results;
  std::vector<std::string> Keys;
  std::vector<char> Cached;
  std::vector<size_t> Group;
  std::vector<std::vector<size_t>> Members;
  std::vector<GroupState> Groups;
  std::vector<std::vector<std::string>> Shared; ///< Per job.
  std::mutex Lock, ProgressLock, ConsumeLock;
  size_t Done = 0;
};

void runPipeline(FactsPipeline &P, size_t JobCount, unsigned Threads) {
  P.lookUpCache();
  // The device-side parses first; then a host-side parse for each command whose
  // device-side parses skipped code with launches, and only for those not
  // cached.
  if (Threads <= 1 || JobCount <= 1) {
    for (size_t I = 0; I < JobCount; ++I)
      if (!P.cached(I))
        P.parse(I);
    for (size_t G = 0; G < P.groups(); ++G)
      if (P.needsHost(G))
        P.parseHost(G);
    return;
  }
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Threads));
  for (size_t I = 0; I < JobCount; ++I)
    if (!P.cached(I))
      Pool.async([&P, I] { P.parse(I); });
  Pool.wait();
  for (size_t G = 0; G < P.groups(); ++G)
    if (P.needsHost(G))
      Pool.async([&P, G] { P.parseHost(G); });
  Pool.wait();
}

} // namespace

void analyzeAll(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
                unsigned Threads, const ProgressFn &Progress,
                const FactsConsumer &Consume) {
  FactsPipeline P(Jobs, Env, Progress, Consume, /*KeepInputs=*/false);
  runPipeline(P, Jobs.size(), Threads);
}

std::vector<TranslationUnitFacts> analyzeAll(const std::vector<UnitJob> &Jobs,
                                             const ParseEnvironment &Env,
                                             unsigned Threads,
                                             const ProgressFn &Progress) {
  std::vector<TranslationUnitFacts> Out(Jobs.size());
  FactsConsumer Keep = [&](size_t I, TranslationUnitFacts &&F) {
    Out[I] = std::move(F);
  };
  FactsPipeline P(Jobs, Env, Progress, Keep, /*KeepInputs=*/true);
  runPipeline(P, Jobs.size(), Threads);
  return Out;
}

} // namespace frontend
} // namespace tilefit
