//===- SharedMemoryCollector.cpp ------------------------------------------===//
#include "tilefit/matchers/SharedMemoryCollector.h"

#include "CallArguments.h"
#include "ExtentConstraints.h"
#include "ParseErrorReach.h"
#include "SharedAccesses.h"
#include "tilefit/matchers/BodySlicer.h"
#include "tilefit/matchers/EmissionWalk.h"
#include "tilefit/matchers/EvaluatedCodeVisitor.h"
#include "tilefit/matchers/InstantiationRecorder.h"
#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/LaunchSites.h"
#include "tilefit/matchers/ScopeFacts.h"
#include "tilefit/matchers/SourcePosition.h"
#include "tilefit/matchers/TypeLayout.h"
#include "tilefit/matchers/WrittenSource.h"
#include "tilefit/model/CallGraph.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

using namespace clang;
using namespace clang::ast_matchers;

namespace tilefit {
namespace matchers {
namespace {

/// A declaration inside an uninstantiated template (a pattern): its types may
/// be dependent and it is never emitted. Only its instantiations get figures.
AST_MATCHER(Decl, isTemplated) { return Node.isTemplated(); }

/// `extern template` declarations: the definition lives in another translation
/// unit.
AST_MATCHER(FunctionDecl, isExplicitInstantiationDeclaration) {
  return Node.getTemplateSpecializationKind() ==
         TSK_ExplicitInstantiationDeclaration;
}

/// Every `__shared__` variable with a concrete type: namespace-scope ones,
/// function-local statics of kernels and device functions, and those of every
/// template instantiation (the finder visits instantiations), but not the
/// uninstantiated template patterns.
DeclarationMatcher sharedVarMatcher() {
  return varDecl(hasAttr(attr::CUDAShared), unless(isTemplated())).bind("var");
}

/// Every kernel that gets code: a `__global__` definition that is not a
/// template pattern, i.e. a plain kernel or an implicit or explicit
/// instantiation of a kernel template.
DeclarationMatcher kernelMatcher() {
  return functionDecl(hasAttr(attr::CUDAGlobal), isDefinition(),
                      unless(isTemplated()),
                      unless(isExplicitInstantiationDeclaration()))
      .bind("kernel");
}

/// A kernel template specialization that code uses but that has no body
/// although its template has one: Clang did not instantiate it (its
/// instantiation failed, or an error stopped the parse first). nvcc would emit
/// it; in a unit without errors there is none.
AST_MATCHER(FunctionDecl, isUsedUninstantiatedSpecialization) {
  if (Node.hasBody())
    return false;
  const TemplateSpecializationKind K = Node.getTemplateSpecializationKind();
  if (!(K == TSK_ExplicitInstantiationDefinition ||
        (K == TSK_ImplicitInstantiation &&
         Node.isUsed(/*CheckUsedAttr=*/false))))
    return false;
  return Node.getTemplateInstantiationPattern() != nullptr;
}
DeclarationMatcher unbuiltKernelMatcher() {
  return functionDecl(hasAttr(attr::CUDAGlobal), unless(isTemplated()),
                      isUsedUninstantiatedSpecialization())
      .bind("unbuilt-kernel");
}

/// Whether a function's parameter is unused in the code that runs: NVVM inlines
/// the call, and a `__shared__` variable whose address only reaches such
/// parameters has no use left and is not emitted (cooperative groups'
/// `block_tile_memory` on sm_80, whose scratch the reserved shared memory
/// replaces: ptxas counts 0 bytes). A parameter passed on to another unused
/// parameter is unused too. Unknown callees (no body, variadic) use theirs.
/// A parameter found unused whose uses body slicing left out (BodySlicer::
/// droppedUses) is recorded in \p Unsound: the unit is to be parsed again
/// whole.
class UnusedParameters {
public:
  UnusedParameters(ASTContext &Ctx, const BodySlicer *Slicer,
                   std::optional<Reason> &Unsound)
      : Ctx(Ctx), Slicer(Slicer), Unsound(Unsound) {}

  bool unused(const FunctionDecl *Callee, unsigned Index);

  /// The arguments of \p Call (a call, member call, operator call or
  /// construction) that name a variable \p IsTarget accepts and go to an unused
  /// parameter.
  template <typename Pred>
  void droppedArguments(const Expr *Call, Pred IsTarget,
                        llvm::SmallPtrSetImpl<const DeclRefExpr *> &Out) {
    llvm::SmallVector<const Expr *, 8> Args;
    unsigned Shift = 0;
    const FunctionDecl *Callee = resolvedCall(Call, Args, Shift);
    if (!Callee)
      return;
    for (unsigned I = Shift; I < Args.size(); ++I)
      if (const DeclRefExpr *Ref = namedArgument(Args[I]);
          Ref && IsTarget(Ref) && unused(Callee, I - Shift))
        Out.insert(Ref);
  }

private:
  ASTContext &Ctx;
  const BodySlicer *Slicer;
  std::optional<Reason> &Unsound;
  llvm::DenseMap<const ParmVarDecl *, bool> Known;
};

/// Looks for a use of one parameter in its function's code that runs.
class ParameterUses : public EvaluatedCodeVisitor<ParameterUses> {
public:
  ParameterUses(ASTContext &Ctx, const ParmVarDecl *P, UnusedParameters &Unused)
      : EvaluatedCodeVisitor(Ctx), P(P), Unused(Unused) {}
  bool pruneConstantBranches() const { return true; }

  bool Used = false;

  bool VisitCallExpr(CallExpr *E) { return forwarded(E); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) { return forwarded(E); }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == P && !Dropped.count(E))
      Used = true;
    return !Used;
  }
  bool TraverseLambdaExpr(LambdaExpr *E) {
    Used = true; // captured or not, not worth following
    return false;
  }

private:
  bool forwarded(const Expr *Call) {
    Unused.droppedArguments(
        Call, [&](const DeclRefExpr *R) { return R->getDecl() == P; }, Dropped);
    return true;
  }
  const ParmVarDecl *P;
  UnusedParameters &Unused;
  llvm::SmallPtrSet<const DeclRefExpr *, 4> Dropped;
};

bool UnusedParameters::unused(const FunctionDecl *Callee, unsigned Index) {
  const FunctionDecl *Def = Callee->getDefinition();
  if (!Def || !Def->hasBody() || Def->isVariadic() ||
      Index >= Def->getNumParams())
    return false;
  // Compiler-written bodies pass their parameters on where the AST does not
  // show it: an inheriting constructor (`using iter_adaptor::iter_adaptor;`,
  // CuTe's smem_ptr) forwards them to the base's; a defaulted one copies
  // members.
  if (Def->isImplicit() || Def->isDefaulted())
    return false;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def);
      Ctor && Ctor->isInheritingConstructor())
    return false;
  const ParmVarDecl *P = Def->getParamDecl(Index);
  auto [It, New] =
      Known.try_emplace(P, false); // while being decided (a cycle): used
  if (!New)
    return It->second;
  ParameterUses Uses(Ctx, P, *this);
  Uses.walkFunction(Def);
  Known[P] = !Uses.Used;
  if (!Uses.Used && Slicer && !Unsound && Slicer->droppedUses(Def, Index))
    Unsound = Reason(ReasonKind::SliceUnsoundParameter,
                     {P->getNameAsString(), functionName(Def)});
  return !Uses.Used;
}

/// What one function's definition refers to in code that runs: the `__shared__`
/// variables it names and the functions it calls or takes the address of; and
/// what it keeps per thread and allocates in Tensor Memory. Branches whose
/// condition folds to a constant are pruned as the optimizer prunes them;
/// lambdas and local classes are functions of their own, reached through their
/// calls.
class ReferenceScanner : public EvaluatedCodeVisitor<ReferenceScanner> {
public:
  ReferenceScanner(ASTContext &Ctx, const FunctionDecl *Fn,
                   UnusedParameters &Unused)
      : EvaluatedCodeVisitor(Ctx), Fn(Fn), InAllocator(isTmemAllocator(Fn)),
        Unused(Unused) {}

  llvm::SetVector<const VarDecl *> Vars;
  llvm::SetVector<const FunctionDecl *> Callees;
  /// Local arrays and array-holding objects, in source order.
  llvm::SetVector<const VarDecl *> Locals;
  /// The block scopes walked, in pre-order (FunctionFacts::ScopeParents).
  std::vector<size_t> ScopeParents{0};
  /// The scope each of Locals is declared in.
  std::vector<size_t> LocalScopes;
  /// Each scope a function is called in (or its address taken), in order.
  llvm::SetVector<std::pair<const FunctionDecl *, size_t>> CallScopes;
  std::vector<TmemAllocation> Tmem;
  /// The body holds code Clang could not build after an error (a recovery
  /// expression, an invalid declaration, a reference to one): what it refers to
  /// may be incomplete.
  bool Unbuilt = false;

  bool pruneConstantBranches() const { return true; }

  // A declaration ends with the block, or the for/if/while/switch statement,
  // it is made in.
  static bool opensScope(const Stmt *S) {
    return isa<CompoundStmt, ForStmt, CXXForRangeStmt, IfStmt, WhileStmt,
               SwitchStmt, CXXCatchStmt>(S);
  }
  bool dataTraverseStmtPre(Stmt *S) {
    if (S && opensScope(S)) {
      ScopeParents.push_back(scope());
      Open.push_back(ScopeParents.size() - 1);
    }
    return true;
  }
  bool dataTraverseStmtPost(Stmt *S) {
    if (S && opensScope(S) && !Open.empty())
      Open.pop_back();
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    Unbuilt |= VD->isInvalidDecl();
    if (isPerThreadArray(Ctx, VD) && Locals.insert(VD))
      LocalScopes.push_back(scope());
    return true;
  }
  bool VisitRecoveryExpr(RecoveryExpr *) {
    Unbuilt = true;
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    // An allocator modelled by its call is counted at the call, with its
    // argument.
    if (!InAllocator)
      tmemAllocationsInAsm(Ctx, Fn, S, Tmem);
    return true;
  }
  bool VisitCallExpr(CallExpr *E) {
    if (auto A = tmemAllocationCall(Ctx, Fn, E))
      Tmem.push_back(std::move(*A));
    dropUnusedArguments(E);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    Unbuilt |= E->getDecl()->isInvalidDecl();
    if (const auto *VD = dyn_cast<VarDecl>(E->getDecl())) {
      if (VD->hasAttr<CUDASharedAttr>() && !Dropped.count(E))
        Vars.insert(VD->getCanonicalDecl());
    } else if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl())) {
      call(FD);
    }
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *MD = dyn_cast<CXXMethodDecl>(E->getMemberDecl()))
      call(MD);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    call(E->getConstructor());
    dropUnusedArguments(E);
    return true;
  }
  void implicitCall(const FunctionDecl *FD) { call(FD); }
  bool VisitCXXNewExpr(CXXNewExpr *E) {
    if (const FunctionDecl *FD = E->getOperatorNew())
      call(FD);
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    if (const FunctionDecl *FD = E->getOperatorDelete())
      call(FD);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *E) {
    for (Expr *Init : E->capture_inits())
      if (Init)
        TraverseStmt(Init);
    return true;
  }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
  bool
  TraverseClassTemplateSpecializationDecl(ClassTemplateSpecializationDecl *) {
    return true;
  }

private:
  size_t scope() const { return Open.empty() ? 0 : Open.back(); }
  void call(const FunctionDecl *FD) {
    Callees.insert(FD);
    CallScopes.insert({FD, scope()});
  }

  /// A `__shared__` variable passed only where the callee never uses it is no
  /// reference.
  void dropUnusedArguments(const Expr *Call) {
    Unused.droppedArguments(
        Call,
        [](const DeclRefExpr *R) {
          const auto *VD = dyn_cast<VarDecl>(R->getDecl());
          return VD && VD->hasAttr<CUDASharedAttr>();
        },
        Dropped);
  }

  const FunctionDecl *Fn;
  const bool InAllocator;
  UnusedParameters &Unused;
  llvm::SmallPtrSet<const DeclRefExpr *, 4> Dropped;
  /// The scopes the walk is in, innermost last; scope 0 (the function, with
  /// its member initializers) below them.
  std::vector<size_t> Open;
};

/// Which error of the unit, if any, may have changed what \p Kernel reaches
/// (ParseErrors.h): one inside its code, its `__shared__` variables and their
/// types; else code Clang could not build; else, for a specialization Clang did
/// not instantiate, the unit's first error.
template <typename ScanFn>
std::optional<ErrorTouch>
errorTouching(const FunctionDecl *Kernel,
              const llvm::SetVector<const FunctionDecl *> &Reached,
              const llvm::SetVector<const VarDecl *> &Used, ErrorReach &Reach,
              bool NoBody, ScanFn &&ScanOf) {
  llvm::SmallVector<const Decl *, 16> Uses;
  llvm::SmallPtrSet<const Decl *, 16> Ids;
  Uses.push_back(Kernel);
  Ids.insert(Kernel->getCanonicalDecl());
  for (const FunctionDecl *FD : Reached) {
    Uses.push_back(FD);
    Ids.insert(FD->getCanonicalDecl());
  }
  llvm::SmallPtrSet<const Decl *, 16> Records;
  for (const VarDecl *VD : Used) {
    Uses.push_back(VD);
    Ids.insert(VD->getCanonicalDecl());
    llvm::SmallVector<const Decl *, 4> Types;
    ErrorReach::addRecordTypes(VD->getType(), Types, Records);
    for (const Decl *T : Types) {
      Uses.push_back(T);
      Ids.insert(T->getCanonicalDecl());
    }
  }
  if (std::optional<size_t> E = Reach.touching(Uses, Ids))
    return ErrorTouch{ErrorTouch::Kind::InItsCode, *E};
  bool Unbuilt = Kernel->isInvalidDecl();
  for (const FunctionDecl *FD : Reached)
    Unbuilt |= FD->isInvalidDecl() || ScanOf(FD).Unbuilt;
  for (const VarDecl *VD : Used)
    Unbuilt |= VD->isInvalidDecl();
  std::optional<size_t> First = Reach.firstError();
  if (!First)
    return std::nullopt;
  if (Unbuilt)
    return ErrorTouch{ErrorTouch::Kind::UnbuiltCode, *First};
  if (NoBody)
    return ErrorTouch{ErrorTouch::Kind::NoBody, *First};
  return std::nullopt;
}

/// The definition of \p FD, if it has a body.
const FunctionDecl *definitionOf(const FunctionDecl *FD) {
  const FunctionDecl *Def = FD->getDefinition();
  return Def && Def->hasBody() ? Def : nullptr;
}

/// The raw call graph of what the kernels reach (FunctionFacts), translated
/// into TranslationUnitFacts::Functions as kernels are added: the model's
/// call-graph stage decides from it what each kernel reaches
/// (model/CallGraph.h). What each function refers to is scanned once.
class CallGraphBuilder {
public:
  CallGraphBuilder(ASTContext &Ctx, llvm::ArrayRef<const VarDecl *> Vars,
                   llvm::DenseMap<const VarDecl *, size_t> &VarIndex,
                   const BodySlicer *Slicer, std::optional<Reason> &Unsound,
                   TranslationUnitFacts &Out)
      : Ctx(Ctx), VarIndex(VarIndex), Slicer(Slicer), Unsound(Unsound),
        Out(Out), Unused(Ctx, Slicer, Unsound) {
    for (const VarDecl *VD : Vars)
      if (VD->isLocalVarDecl())
        if (const auto *FD = dyn_cast<FunctionDecl>(VD->getDeclContext()))
          LocalsOf[FD->getCanonicalDecl()].push_back(VarIndex[VD]);
  }

  /// What \p FD refers to, scanned the first time it is asked for.
  const ReferenceScanner &scanOf(const FunctionDecl *FD) {
    auto &Slot = Scans[FD];
    if (!Slot) {
      Slot = std::make_unique<ReferenceScanner>(Ctx, FD, Unused);
      Slot->walkFunction(FD);
    }
    return *Slot;
  }

  /// Indexes \p Root and everything it reaches, each function once (a work
  /// list, so recursion terminates); \p Root's index.
  size_t add(const FunctionDecl *Root) {
    std::vector<const FunctionDecl *> Work;
    const size_t RootIndex = index(Root, Work);
    while (!Work.empty()) {
      const FunctionDecl *FD = Work.back();
      Work.pop_back();
      FunctionFacts F = describe(FD, Work);
      Out.Functions[FunctionIndex[FD]] = std::move(F);
    }
    return RootIndex;
  }

  /// The function at \p Index in TranslationUnitFacts::Functions.
  const FunctionDecl *function(size_t Index) const {
    return FunctionDecls[Index];
  }

private:
  /// \p Def's index; a new one the first time, \p Def then added to \p Work.
  size_t index(const FunctionDecl *Def,
               std::vector<const FunctionDecl *> &Work) {
    auto [It, New] = FunctionIndex.try_emplace(Def, Out.Functions.size());
    if (New) {
      Out.Functions.emplace_back();
      FunctionDecls.push_back(Def);
      Work.push_back(Def);
    }
    return It->second;
  }

  /// The facts of \p FD, indexing its callees (the new ones to \p Work).
  FunctionFacts describe(const FunctionDecl *FD,
                         std::vector<const FunctionDecl *> &Work) {
    const ReferenceScanner &S = scanOf(FD);
    FunctionFacts F;
    F.Name = functionName(FD);
    F.NoInline = FD->hasAttr<NoInlineAttr>();
    for (const FunctionDecl *Callee : S.Callees)
      if (const FunctionDecl *Def = definitionOf(Callee)) {
        size_t C = index(Def, Work);
        if (std::find(F.Callees.begin(), F.Callees.end(), C) == F.Callees.end())
          F.Callees.push_back(C);
      }
    F.ScopeParents = S.ScopeParents;
    for (const auto &[Callee, Scope] : S.CallScopes)
      if (const FunctionDecl *Def = definitionOf(Callee)) {
        std::pair<size_t, size_t> Call{FunctionIndex.lookup(Def), Scope};
        if (std::find(F.CallScopes.begin(), F.CallScopes.end(), Call) ==
            F.CallScopes.end())
          F.CallScopes.push_back(Call);
      }
    F.LocalArrayScopes = S.LocalScopes;
    for (const VarDecl *VD : S.Vars)
      if (auto It = VarIndex.find(VD); It != VarIndex.end())
        F.SharedRefs.push_back(It->second);
    if (auto It = LocalsOf.find(FD->getCanonicalDecl()); It != LocalsOf.end())
      F.SharedDecls = It->second;
    for (const VarDecl *VD : S.Locals) {
      F.LocalArrays.push_back(Out.LocalArrays.size());
      Out.LocalArrays.push_back(describeLocalArray(Ctx, VD));
    }
    F.Tmem = S.Tmem;
    collectSharedAccesses(Ctx, FD, VarIndex, F);
    if (Slicer) {
      F.UninstantiatedStatements = Slicer->uninstantiatedStatements(FD);
      if (!Unsound && !Slicer->sound(FD))
        Unsound = Reason(ReasonKind::SliceUnsoundArgument);
    }
    return F;
  }

  ASTContext &Ctx;
  llvm::DenseMap<const VarDecl *, size_t> &VarIndex;
  const BodySlicer *Slicer;
  std::optional<Reason> &Unsound;
  TranslationUnitFacts &Out;
  UnusedParameters Unused;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ReferenceScanner>> Scans;
  /// The `__shared__` variables each function declares, by index.
  llvm::DenseMap<const FunctionDecl *, std::vector<size_t>> LocalsOf;
  llvm::DenseMap<const FunctionDecl *, size_t> FunctionIndex;
  std::vector<const FunctionDecl *> FunctionDecls;
};

/// \p Kernel's names (its own, the mangled one and nvcc's differences) and
/// where it is declared and instantiated.
KernelFacts namedKernel(const FunctionDecl *Kernel, KernelNamer &Namer,
                        const SourceManager &SM) {
  KernelFacts K;
  K.Name = functionName(Kernel);
  K.Mangled = Namer.mangled(Kernel);
  K.NameDiffers = Namer.differsFromNvcc(Kernel, K.Mangled);
  K.RelocatableMangled = Namer.relocatableName(Kernel, K.Mangled);
  K.Loc = toSourcePos(SM, Kernel->getLocation());
  if (Kernel->isTemplateInstantiation() &&
      Kernel->getPointOfInstantiation().isValid())
    K.InstantiatedAt = toSourcePos(SM, Kernel->getPointOfInstantiation());
  return K;
}

/// The launches and attribute calls \p Launches found of the kernel defined
/// by \p KernelDef, appended to \p K's.
void addLaunches(const FunctionDecl *KernelDef, const LaunchCollector &Launches,
                 KernelFacts &K) {
  for (const auto &[Callee, Site] : Launches.Launches)
    if (Callee == KernelDef)
      K.Launches.push_back(Site);
  for (const auto &[Callee, Call] : Launches.Attributes)
    if (Callee == KernelDef)
      K.Attributes.push_back(Call);
}

/// Which error of the unit may have changed what \p Kernel reaches
/// (errorTouching); \p Function: its definition's index, \p NoBody: a
/// specialization Clang did not instantiate.
std::optional<ErrorTouch> kernelError(const FunctionDecl *Kernel,
                                      std::optional<size_t> Function,
                                      bool NoBody, CallGraphBuilder &Graph,
                                      ErrorReach &Reach,
                                      const TranslationUnitFacts &Out) {
  // The code the kernel reaches, as the model's call-graph stage walks it.
  llvm::SetVector<const FunctionDecl *> Reached;
  llvm::SetVector<const VarDecl *> Used;
  if (Function)
    for (size_t F : functionsReachedFrom(Out, *Function)) {
      Reached.insert(Graph.function(F));
      for (const VarDecl *VD : Graph.scanOf(Graph.function(F)).Vars)
        Used.insert(VD);
    }
  return errorTouching(Kernel, Reached, Used, Reach, NoBody,
                       [&](const FunctionDecl *FD) -> const ReferenceScanner & {
                         return Graph.scanOf(FD);
                       });
}

} // namespace

class SharedMemoryCollector::SharedVarCallback
    : public MatchFinder::MatchCallback {
public:
  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *VD = Result.Nodes.getNodeAs<VarDecl>("var"))
      if (Seen.insert(VD->getCanonicalDecl()).second)
        Vars.push_back(VD->getCanonicalDecl());
  }
  llvm::DenseSet<const VarDecl *> Seen;
  std::vector<const VarDecl *> Vars; ///< In the order the finder met them.
};

class SharedMemoryCollector::KernelCallback
    : public MatchFinder::MatchCallback {
public:
  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("kernel"))
      if (Seen.insert(FD).second)
        Kernels.push_back(FD);
    if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("unbuilt-kernel"))
      if (Seen.insert(FD).second) {
        Kernels.push_back(FD);
        Unbuilt.insert(FD);
      }
  }
  llvm::DenseSet<const FunctionDecl *> Seen;
  std::vector<const FunctionDecl *> Kernels;
  llvm::DenseSet<const FunctionDecl *>
      Unbuilt; ///< Specializations Clang did not instantiate.
};

SharedMemoryCollector::SharedMemoryCollector()
    : Vars(std::make_unique<SharedVarCallback>()),
      Kernels(std::make_unique<KernelCallback>()),
      Launches(std::make_unique<LaunchCollector>()),
      Constants(std::make_unique<ConstantCollector>()) {}
SharedMemoryCollector::~SharedMemoryCollector() = default;

void SharedMemoryCollector::registerMatchers(MatchFinder &Finder) {
  Finder.addMatcher(sharedVarMatcher(), Vars.get());
  Finder.addMatcher(kernelMatcher(), Kernels.get());
  Finder.addMatcher(unbuiltKernelMatcher(), Kernels.get());
  Launches->registerMatchers(Finder);
  Constants->registerMatchers(Finder);
}

void SharedMemoryCollector::finish(ASTContext &Ctx,
                                   const InstantiationRecorder &Instantiations,
                                   llvm::ArrayRef<ParseError> Errors,
                                   TranslationUnitFacts &Out) {
  const SourceManager &SM = Ctx.getSourceManager();

  // The variables, translated.
  Out.Vars = describeVariables(Ctx, Vars->Vars);
  llvm::DenseMap<const VarDecl *, size_t> VarIndex;
  for (size_t I = 0; I < Vars->Vars.size(); ++I) {
    VarIndex[Vars->Vars[I]] = I;
    if (const auto *Fn = dyn_cast_or_null<FunctionDecl>(
            Vars->Vars[I]->getParentFunctionOrMethod()))
      if ((Out.Vars[I].KernelLocal = Fn->hasAttr<CUDAGlobalAttr>()))
        Out.Vars[I].Written = writtenDeclaration(Ctx, Vars->Vars[I]);
  }
  ErrorReach Reach(SM, Errors);

  Out.Emission = buildEmissionProgram(Ctx, VarIndex, Instantiations);
  if (Slicer)
    Out.Slicing = Slicer->summary();

  // The raw call graph of what the kernels reach (FunctionFacts), translated:
  // the model's call-graph stage decides from it what each kernel reaches
  // (model/CallGraph.h). What each function refers to, scanned once per
  // function.
  CallGraphBuilder Graph(Ctx, Vars->Vars, VarIndex, Slicer, Unsound, Out);

  KernelNamer Namer(Ctx, Arch);
  Namer.searchModuleIdInScope(ModuleIdInScope);
  for (const FunctionDecl *Kernel : Kernels->Kernels) {
    // A specialization without a body is a kernel only where errors kept Clang
    // from instantiating it.
    if (Errors.empty() && Kernels->Unbuilt.count(Kernel))
      continue;
    KernelFacts K = namedKernel(Kernel, Namer, SM);
    if (const FunctionDecl *Def = definitionOf(Kernel))
      K.Function = Graph.add(Def);
    addLaunches(Kernel->getDefinition(), *Launches, K);
    K.Bounds = launchBoundsOf(Kernel);
    K.Constraints = constraintsOf(Kernel, Ctx);
    if (!Errors.empty())
      K.Error =
          kernelError(Kernel, K.Function, Kernels->Unbuilt.count(Kernel) != 0,
                      Graph, Reach, Out);
    std::stable_sort(K.Launches.begin(), K.Launches.end(),
                     [](const LaunchSite &A, const LaunchSite &B) {
                       return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Column) <
                              std::tie(B.Loc.File, B.Loc.Line, B.Loc.Column);
                     });
    Out.Kernels.push_back(std::move(K));
  }
  // With -rdc, kernels of internal linkage carry the module id in their names.
  if (std::any_of(
          Out.Kernels.begin(), Out.Kernels.end(),
          [](const KernelFacts &K) { return !K.RelocatableMangled.empty(); }))
    Out.ModuleIdCaveat = Namer.moduleIdCaveat();
  if (!Errors.empty())
    Out.LostLaunches = Launches->Lost;
  Out.LostLaunches.insert(Out.LostLaunches.end(), Launches->Unresolved.begin(),
                          Launches->Unresolved.end());
  Constants->finish(Ctx, Instantiations, Out);
}

} // namespace matchers
} // namespace tilefit
