//===- LaunchSites.cpp ----------------------------------------------------===//
#include "tilefit/matchers/LaunchSites.h"

#include "tilefit/matchers/KernelNames.h"
#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <tuple>

using namespace clang;
using namespace clang::ast_matchers;

namespace tilefit {
namespace matchers {
namespace {

/// The node right around \p E in the chain of implicit conversions and copies
/// that \p Init wraps it in (`(int)(lvalue-to-rvalue)E`, `dim3(E)`); null if
/// \p Init is not such a chain.
const Stmt *implicitParentOf(const Expr *E, const Expr *Init) {
  while (Init) {
    const Expr *Inner = nullptr;
    if (const auto *C = dyn_cast<ImplicitCastExpr>(Init))
      Inner = C->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(Init);
             C && C->getNumArgs() == 1)
      Inner = C->getArg(0);
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Init))
      Inner = M->getSubExpr();
    if (Inner == E)
      return Init;
    Init = Inner;
  }
  return nullptr;
}

/// Whether \p T is a const object nothing can change (no `mutable` field).
static bool constObject(QualType T) {
  if (!T.isConstQualified() || T->isReferenceType())
    return false;
  const auto *RD = T->getAsCXXRecordDecl();
  return !RD || !RD->hasDefinition() || !RD->hasMutableFields();
}

/// Whether \p Ref is an argument of the call \p Parent bound to a reference to
/// const (`launch(params)` with `void launch(const Params &)`): a read.
static bool passedAsConstReference(const DeclRefExpr *Ref, const Stmt *Parent) {
  const auto *Call = dyn_cast<CallExpr>(Parent);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return false;
  // A member operator call's first argument is the object.
  unsigned Shift = isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee);
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (Call->getArg(I) != Ref || I < Shift)
      continue;
    if (I - Shift >= Callee->getNumParams())
      return false;
    QualType T = Callee->getParamDecl(I - Shift)->getType();
    return T->isReferenceType() && T->getPointeeType().isConstQualified();
  }
  return false;
}

/// Whether every use of the local \p VD in \p Body only reads it: then its
/// initializer is its value everywhere.
bool neverWritten(const VarDecl *VD, const Stmt *Body) {
  // `const Params p = Params(grid, block, 0, stream);`: nothing writes it.
  if (constObject(VD->getType()))
    return true;
  // Each use with the statement around it, found in the body alone (the unit's
  // parent map would be built for the whole unit).
  struct Uses : RecursiveASTVisitor<Uses> {
    const VarDecl *VD;
    std::vector<const Stmt *> Open;
    /// Each use: the reference, the statement around it and the one around
    /// that.
    std::vector<std::tuple<const DeclRefExpr *, const Stmt *, const Stmt *>>
        Refs;
    bool dataTraverseStmtPre(Stmt *S) {
      if (const auto *E = dyn_cast<DeclRefExpr>(S); E && E->getDecl() == VD)
        Refs.push_back({E, Open.empty() ? nullptr : Open.back(),
                        Open.size() < 2 ? nullptr : Open[Open.size() - 2]});
      Open.push_back(S);
      return true;
    }
    bool dataTraverseStmtPost(Stmt *) {
      Open.pop_back();
      return true;
    }
  } U;
  U.VD = VD;
  U.TraverseStmt(const_cast<Stmt *>(Body));
  for (auto [Ref, Parent, Above] : U.Refs) {
    if (!Parent)
      return false;
    // A field of it (`params.smem_bytes`): how the field is used.
    const Expr *E = Ref;
    if (const auto *M = dyn_cast<MemberExpr>(Parent);
        M && !M->isArrow() && isa<FieldDecl>(M->getMemberDecl())) {
      E = M;
      Parent = Above;
      if (!Parent)
        return false;
    }
    // In a braced initializer (`Params p = {grid, block, bytes}`) the traversal
    // sees the list as written, without the conversions: the semantic form's
    // element says how it is used (a copy of the value, or a reference bound to
    // the variable).
    if (const auto *List = dyn_cast<InitListExpr>(Parent)) {
      const InitListExpr *Semantic =
          List->isSemanticForm() ? List : List->getSemanticForm();
      for (const Expr *Init : Semantic ? Semantic->inits() : List->inits())
        if (const Stmt *Around = implicitParentOf(E, Init))
          Parent = Around;
    }
    const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent);
    const auto *Copy = dyn_cast<CXXConstructExpr>(Parent);
    bool Read = (Cast && (Cast->getCastKind() == CK_LValueToRValue ||
                          Cast->getCastKind() == CK_NoOp)) ||
                (Copy && Copy->getConstructor()->isCopyOrMoveConstructor() &&
                 Copy->getConstructor()
                     ->getParamDecl(0)
                     ->getType()
                     ->getPointeeType()
                     .isConstQualified());
    bool Unevaluated = isa<UnaryExprOrTypeTraitExpr>(Parent);
    if (E == Ref)
      Read |= passedAsConstReference(Ref, Parent);
    if (!Read && !Unevaluated)
      return false;
  }
  return true;
}

} // namespace

/// Peels `a.b.c` (fields, not `->`) down to the expression it starts from: \p
/// Path gets the fields, outermost first.
static const Expr *peelFields(const Expr *E,
                              llvm::SmallVectorImpl<const FieldDecl *> &Path) {
  llvm::SmallVector<const FieldDecl *, 4> Reversed;
  E = E->IgnoreParenImpCasts();
  while (const auto *M = dyn_cast<MemberExpr>(E)) {
    const auto *F = dyn_cast<FieldDecl>(M->getMemberDecl());
    if (!F || M->isArrow())
      break;
    Reversed.push_back(F);
    E = M->getBase()->IgnoreParenImpCasts();
  }
  Path.append(Reversed.rbegin(), Reversed.rend());
  return E;
}

/// Evaluates launch arguments: integers, and dim3 values as the product of
/// their fields.
///
/// An evaluator may stand for one call of its function (\p Site, made in \p
/// Caller's function): then a parameter is the argument the call passes,
/// evaluated in the caller. That is how a launch inside a helper
/// (`ClusterLauncher::launch(grid, cluster, block, smem, stream, kernel,
/// params)`) is read with the values of each call site.
class LaunchEvaluator {
public:
  /// \p ReadOnly (null: none) keeps the answers of neverWritten between
  /// evaluations.
  LaunchEvaluator(ASTContext &Ctx, const FunctionDecl *Fn,
                  llvm::DenseMap<const VarDecl *, bool> *ReadOnly = nullptr,
                  const CallExpr *Site = nullptr,
                  LaunchEvaluator *Caller = nullptr)
      : Ctx(Ctx), Fn(Fn), ReadOnly(ReadOnly), Site(Site), Caller(Caller) {}

  const FunctionDecl *function() const { return Fn; }
  /// Whether \p F is the function of this evaluator or of one of its callers.
  bool onChain(const FunctionDecl *F) const {
    for (const LaunchEvaluator *E = this; E; E = E->Caller)
      if (E->Fn == F)
        return true;
    return false;
  }
  /// The evaluator of the outermost call of the chain.
  LaunchEvaluator &top() { return Caller ? Caller->top() : *this; }
  /// Binds the outermost function's parameters to the arguments of \p Call,
  /// made in \p Outer's function (null, null: unbinds).
  void bind(const CallExpr *Call, LaunchEvaluator *Outer) {
    Site = Call;
    Caller = Outer;
  }

  /// Set when a value or kernel depended on a parameter of this (outermost)
  /// function: one of its call sites may tell it.
  bool ReachedParameter = false;
  /// The argument of the call this (outermost) evaluator's callee is bound to
  /// that a kernel could not be told from.
  const Expr *KernelGivenUp = nullptr;

  /// Whether \p VD is a local of the function, initialized and never written
  /// afterwards.
  bool initializedOnly(const VarDecl *VD) {
    if (!VD->isLocalVarDecl() || !VD->getInit() || !Fn || !Fn->getBody())
      return false;
    if (!ReadOnly)
      return neverWritten(VD, Fn->getBody());
    auto [It, New] = ReadOnly->try_emplace(VD, false);
    if (New)
      It->second = neverWritten(VD, Fn->getBody());
    return It->second;
  }

  std::optional<uint64_t> evaluate(const Expr *E, std::string &Why,
                                   int Depth = 0) {
    auto V = value(E, Why, Depth);
    return V ? fromValue(*V, Why) : std::nullopt;
  }

  /// \p V as a size: an integer, or a dim3's product.
  std::optional<uint64_t> number(const APValue &V, std::string &Why) {
    return fromValue(V, Why);
  }

  /// An integer condition or expression over constants and locals initialized
  /// once and only read (`smem_size >= (48 << 10)`): its value, or nothing when
  /// it depends on anything else.
  std::optional<int64_t> condition(const Expr *E, int Depth = 0) {
    if (!E || Depth > 32 || E->isValueDependent() || E->isTypeDependent())
      return std::nullopt;
    E = E->IgnoreParenImpCasts();
    Expr::EvalResult R;
    if (E->EvaluateAsRValue(R, Ctx) && !R.HasSideEffects && R.Val.isInt())
      return R.Val.getInt().getExtValue();
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      auto L = condition(B->getLHS(), Depth + 1);
      if (B->getOpcode() == BO_LAnd && L && !*L)
        return 0;
      if (B->getOpcode() == BO_LOr && L && *L)
        return 1;
      auto Rv = condition(B->getRHS(), Depth + 1);
      if (!L || !Rv)
        return std::nullopt;
      const int64_t A = *L, C = *Rv;
      switch (B->getOpcode()) {
      case BO_LT:
        return A < C;
      case BO_GT:
        return A > C;
      case BO_LE:
        return A <= C;
      case BO_GE:
        return A >= C;
      case BO_EQ:
        return A == C;
      case BO_NE:
        return A != C;
      case BO_LAnd:
        return A && C;
      case BO_LOr:
        return A || C;
      case BO_Add:
        return A + C;
      case BO_Sub:
        return A - C;
      case BO_Mul:
        return A * C;
      case BO_Div:
        return C ? std::optional<int64_t>(A / C) : std::nullopt;
      case BO_Rem:
        return C ? std::optional<int64_t>(A % C) : std::nullopt;
      case BO_Shl:
        return C >= 0 && C < 63 ? std::optional<int64_t>(A << C) : std::nullopt;
      case BO_Shr:
        return C >= 0 && C < 63 ? std::optional<int64_t>(A >> C) : std::nullopt;
      case BO_And:
        return A & C;
      case BO_Or:
        return A | C;
      case BO_Xor:
        return A ^ C;
      default:
        return std::nullopt;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      auto V = condition(U->getSubExpr(), Depth + 1);
      if (!V)
        return std::nullopt;
      if (U->getOpcode() == UO_LNot)
        return !*V;
      if (U->getOpcode() == UO_Minus)
        return -*V;
      if (U->getOpcode() == UO_Plus)
        return *V;
      return std::nullopt;
    }
    // Any other value value() reads (a local, a parameter bound at a call site,
    // a field of a braced local).
    std::string Ignored;
    if (auto V = value(E, Ignored, Depth + 1); V && V->isInt())
      return V->getInt().getExtValue();
    return std::nullopt;
  }

  /// The kernel a launch API's function argument (or the callee of `<<<>>>`)
  /// names: `k`,
  /// `&k<32>`, `(const void *)k`, `reinterpret_cast<void *>(k)`, `*k`, a
  /// variable initialized with one of those (`auto kernel_fptr =
  /// gemm_device<...>;`) that the function never writes to afterwards, or a
  /// parameter bound to one at a call site.
  const FunctionDecl *kernel(const Expr *E, int Depth = 0) {
    if (!E || Depth > 16)
      return nullptr;
    E = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      return kernel(Cast->getSubExpr(), Depth + 1);
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && (U->getOpcode() == UO_AddrOf || U->getOpcode() == UO_Deref))
      return kernel(U->getSubExpr(), Depth + 1);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
        return FD->hasAttr<CUDAGlobalAttr>() ? FD : nullptr;
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
        if (const Expr *A = argumentFor(P)) {
          const FunctionDecl *K = Caller->kernel(A, Depth + 1);
          // The outermost call's argument, as written, is what the kernel is
          // not told from.
          if (!K && !Caller->Caller)
            Caller->KernelGivenUp = A;
          return K;
        }
        if (ownParameter(P))
          return nullptr;
      }
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && VD->getInit()) {
        const bool Local = VD->isLocalVarDecl() && !VD->isStaticLocal();
        const bool Constant = VD->getType().isConstQualified();
        if (!Local || Constant || initializedOnly(VD))
          return kernel(VD->getInit(), Depth + 1);
      }
    }
    return nullptr;
  }

  /// What field \p Name of the `cudaLaunchConfig_t` that \p Config points to
  /// holds at
  /// \p Before: the last assignment to it before then in the function (through
  /// a reference to the configuration too), else its initializer (braced; or
  /// the call of a function that returns a local configuration, read there with
  /// the call's arguments). Zero for a field value-initialized. False in \p
  /// Found when \p Config is not such a configuration.
  std::optional<APValue> configField(const Expr *Config, StringRef Name,
                                     SourceLocation Before, bool &Found,
                                     std::string &Why, int Depth = 0) {
    Found = false;
    if (!Config || Depth > 8 || !Fn || !Fn->getBody())
      return std::nullopt;
    const Expr *E = Config->IgnoreParenImpCasts();
    // A pointer parameter bound at a call site: the caller's configuration,
    // before the call.
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
        if (const Expr *A = argumentFor(P))
          return Caller->configField(A, Name, siteLoc(), Found, Why,
                                     Depth + 1);
        ownParameter(P);
        return std::nullopt;
      }
    const auto *U = dyn_cast<UnaryOperator>(E);
    if (!U || U->getOpcode() != UO_AddrOf)
      return std::nullopt;
    llvm::SmallVector<const FieldDecl *, 4> Path;
    const VarDecl *Root = rootOf(U->getSubExpr(), Path);
    const RecordDecl *RD = U->getSubExpr()->getType()->getAsRecordDecl();
    if (!Root || !RD)
      return std::nullopt;
    const FieldDecl *Field = nullptr;
    for (const FieldDecl *F : RD->fields())
      if (F->getName() == Name)
        Field = F;
    if (!Field)
      return std::nullopt;
    Found = true;
    Path.push_back(Field);
    return stateOf(Root, Path, Before, Why, Depth + 1);
  }

private:
  /// The argument the bound call passes for \p P, a parameter of this function.
  const Expr *argumentFor(const ParmVarDecl *P) const {
    if (!(Site || Construct) || !Caller || P->getDeclContext() != Fn)
      return nullptr;
    unsigned I = P->getFunctionScopeIndex();
    if (Construct)
      return I < Construct->getNumArgs() ? Construct->getArg(I) : nullptr;
    return I < Site->getNumArgs() ? Site->getArg(I) : nullptr;
  }
  SourceLocation siteLoc() const {
    return Construct ? Construct->getBeginLoc() : Site->getBeginLoc();
  }

  /// The fields \p Path of the object \p C constructs, as its constructor
  /// leaves them: the last assignment in its body, else its member
  /// initializer, read with \p C's arguments.
  std::optional<APValue> constructed(const CXXConstructExpr *C,
                                     llvm::ArrayRef<const FieldDecl *> Path,
                                     std::string &Why, int Depth) {
    const FunctionDecl *Def = nullptr;
    if (Path.empty() || Depth > 32 || !C->getConstructor() ||
        !C->getConstructor()->hasBody(Def) || !Def)
      return std::nullopt;
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def);
    if (!Ctor || Ctor->isDelegatingConstructor() ||
        Ctor->getParent() != Path.front()->getParent())
      return std::nullopt;
    LaunchEvaluator Inner(Ctx, Ctor, ReadOnly, nullptr, this);
    Inner.Construct = C;
    return Inner.stateOf(nullptr, Path, Ctor->getBody()->getEndLoc(), Why,
                         Depth + 1);
  }

  /// `this->a.b` in a member function: true, with \p Path the fields from
  /// `a` down.
  static bool rootedAtThis(const Expr *E,
                           llvm::SmallVectorImpl<const FieldDecl *> &Path) {
    llvm::SmallVector<const FieldDecl *, 4> Fields;
    const auto *M = dyn_cast<MemberExpr>(peelFields(E, Fields));
    const auto *F = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
    if (!F || !M->isArrow() ||
        !isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
      return false;
    Path.push_back(F);
    Path.append(Fields.begin(), Fields.end());
    return true;
  }

  /// Whether \p P is a parameter of this function no call binds; notes it for
  /// the caller.
  bool ownParameter(const ParmVarDecl *P) {
    if (Caller || P->getDeclContext() != Fn)
      return false;
    ReachedParameter = true;
    return true;
  }

  static APValue integer(int64_t V) {
    return APValue(llvm::APSInt(llvm::APInt(64, V, true), false));
  }

  /// \p E's value: a compile-time constant, or followed through parameters
  /// bound at a call site, locals initialized once and only read, fields of
  /// braced aggregates, dim3 values built from such parts, and arithmetic over
  /// them.
  std::optional<APValue> value(const Expr *E, std::string &Why, int Depth) {
    if (!E) {
      Why = "it is missing";
      return std::nullopt;
    }
    if (Depth > 32) {
      Why = "it is too deeply nested to follow";
      return std::nullopt;
    }
    E = E->IgnoreImplicit();
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
      E = D->getExpr()->IgnoreImplicit();
    if (const auto *D = dyn_cast<CXXDefaultInitExpr>(E))
      E = D->getExpr()->IgnoreImplicit();
    if (E->isValueDependent() || E->isTypeDependent()) {
      Why = "it depends on a template parameter";
      return std::nullopt;
    }
    if (isa<ImplicitValueInitExpr>(E))
      return integer(0);
    Expr::EvalResult R;
    if (E->EvaluateAsRValue(R, Ctx) && !R.HasSideEffects)
      return R.Val;
    // A copy of a variable (`dim3 block(64, 16); k<<<grid, block>>>`): the
    // variable.
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
        Copy && Copy->getNumArgs() == 1 &&
        Copy->getConstructor()->isCopyOrMoveConstructor())
      return value(Copy->getArg(0), Why, Depth + 1);
    const Expr *Bare = E->IgnoreParenCasts();
    // A field (`params.smem_size_in_bytes`, `block_dims.x`): read out of the
    // parts, without needing the whole aggregate to be constant.
    if (const auto *M = dyn_cast<MemberExpr>(Bare); M && !M->isArrow()) {
      llvm::SmallVector<const FieldDecl *, 4> Path;
      const Expr *Base = peelFields(M, Path);
      std::string Inner;
      if (!Path.empty()) {
        if (auto V = field(Base, Path, Inner, Depth + 1))
          return V;
      }
      if (!Inner.empty()) {
        Why = Inner;
        return std::nullopt;
      }
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
        if (const Expr *A = argumentFor(P))
          return Caller->value(A, Why, Depth + 1);
        ownParameter(P);
      }
      // A local variable initialized once and only read: its initializer.
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && initializedOnly(VD))
        return value(VD->getInit(), Why, Depth + 1);
    }
    // A dim3 built from such values (`{block_dims.x, block_dims.y,
    // block_dims.z}`).
    if (auto V = dim3Value(Bare, Depth + 1))
      return V;
    // Arithmetic over such values (`params.smem_bytes / 2`).
    if (isa<BinaryOperator, UnaryOperator>(Bare))
      if (auto V = condition(Bare, Depth + 1))
        return integer(*V);
    Why = describeRuntimeValue(E);
    return std::nullopt;
  }

  /// The value of the fields \p Path (outermost first) of \p Base, read out of
  /// the braced initializers, bound parameters and dim3 constructions it is
  /// built from.
  std::optional<APValue> field(const Expr *Base,
                               llvm::ArrayRef<const FieldDecl *> Path,
                               std::string &Why, int Depth) {
    if (Path.empty())
      return value(Base, Why, Depth + 1);
    if (!Base || Depth > 32)
      return std::nullopt;
    const Expr *B = Base->IgnoreImplicit();
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(B))
      B = D->getExpr()->IgnoreImplicit();
    if (const auto *D = dyn_cast<CXXDefaultInitExpr>(B))
      B = D->getExpr()->IgnoreImplicit();
    B = B->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(B);
        Cast && Cast->getCastKind() == CK_ConstructorConversion)
      B = Cast->getSubExpr()->IgnoreImplicit();
    if (const auto *M = dyn_cast<MemberExpr>(B); M && !M->isArrow()) {
      llvm::SmallVector<const FieldDecl *, 4> Longer;
      const Expr *Inner = peelFields(M, Longer);
      if (!Longer.empty()) {
        Longer.append(Path.begin(), Path.end());
        return field(Inner, Longer, Why, Depth + 1);
      }
    }
    if (const auto *List = dyn_cast<InitListExpr>(B)) {
      const InitListExpr *Sem =
          List->isSemanticForm() ? List : List->getSemanticForm();
      const unsigned I = Path.front()->getFieldIndex();
      if (Sem && I < Sem->getNumInits() &&
          Sem->getType()->getAsRecordDecl() == Path.front()->getParent())
        return field(Sem->getInit(I), Path.drop_front(), Why, Depth + 1);
      return std::nullopt;
    }
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(B)) {
      if (Copy->getNumArgs() == 1 &&
          Copy->getConstructor()->isCopyOrMoveConstructor())
        return field(Copy->getArg(0), Path, Why, Depth + 1);
      // dim3(x, y, z): its fields are its constructor's arguments, in order.
      if (isDim3(Copy->getType()) && Copy->getNumArgs() == 3 &&
          Path.front()->getFieldIndex() < 3)
        return field(Copy->getArg(Path.front()->getFieldIndex()),
                     Path.drop_front(), Why, Depth + 1);
      // A constructor's work (ggml's `ggml_cuda_kernel_launch_params(grid,
      // block, 0, stream)`: `shmem((size_t)shmem_)`): the field as it leaves
      // it, with this construction's arguments.
      if (!Copy->getConstructor()->isCopyOrMoveConstructor())
        if (auto V = constructed(Copy, Path, Why, Depth + 1))
          return V;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(B)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
        if (const Expr *A = argumentFor(P))
          return Caller->field(A, Path, Why, Depth + 1);
        ownParameter(P);
      } else if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
                 VD && initializedOnly(VD)) {
        return field(VD->getInit(), Path, Why, Depth + 1);
      }
    }
    // A constant aggregate: its field.
    Expr::EvalResult R;
    if (!B->isValueDependent() && B->EvaluateAsRValue(R, Ctx) &&
        !R.HasSideEffects) {
      APValue V = R.Val;
      for (const FieldDecl *F : Path) {
        if (!V.isStruct() || F->getFieldIndex() >= V.getStructNumFields())
          return std::nullopt;
        APValue Next = V.getStructField(F->getFieldIndex());
        V = Next;
      }
      return V;
    }
    return std::nullopt;
  }

  static bool isDim3(QualType T) {
    const RecordDecl *RD = T->getAsRecordDecl();
    return RD && RD->getName() == "dim3";
  }

  /// A dim3 constructed from values this evaluator reads: `dim3(a, b)`, `{x, y,
  /// z}`.
  std::optional<APValue> dim3Value(const Expr *E, int Depth) {
    const auto *C = dyn_cast<CXXConstructExpr>(E);
    if (!C || !isDim3(C->getType()) || C->getNumArgs() != 3 || Depth > 32)
      return std::nullopt;
    APValue V(APValue::UninitStruct(), 0, 3);
    for (unsigned I = 0; I < 3; ++I) {
      std::string Ignored;
      auto F = value(C->getArg(I), Ignored, Depth + 1);
      if (!F || !F->isInt())
        return std::nullopt;
      V.getStructField(I) = *F;
    }
    return V;
  }

  /// The local variable \p E names, through `a.b` fields and references bound
  /// to a field of another local (`auto &launch_config =
  /// cluster_launch_config.launch_config;`); \p Path gets the fields from that
  /// variable down, outermost first.
  const VarDecl *rootOf(const Expr *E,
                        llvm::SmallVectorImpl<const FieldDecl *> &Path,
                        int Depth = 0) {
    llvm::SmallVector<const FieldDecl *, 4> Fields;
    const auto *DRE = dyn_cast<DeclRefExpr>(peelFields(E, Fields));
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!VD || !VD->isLocalVarDecl() || isa<ParmVarDecl>(VD) || Depth > 8)
      return nullptr;
    if (VD->getType()->isReferenceType()) {
      if (!VD->getInit()) // a reference is never re-seated: it names what it
                          // was bound to
        return nullptr;
      const VarDecl *Root = rootOf(VD->getInit(), Path, Depth + 1);
      Path.append(Fields.begin(), Fields.end());
      return Root;
    }
    Path.append(Fields.begin(), Fields.end());
    return VD;
  }

  /// What the fields \p Path of the local \p Root hold at \p Before (see
  /// configField).
  std::optional<APValue> stateOf(const VarDecl *Root,
                                 llvm::ArrayRef<const FieldDecl *> Path,
                                 SourceLocation Before, std::string &Why,
                                 int Depth) {
    // The assignments before the launch, in source order: the last one wins.
    struct Assignments : RecursiveASTVisitor<Assignments> {
      LaunchEvaluator *Self;
      const VarDecl *Root;
      llvm::ArrayRef<const FieldDecl *> Path;
      const SourceManager *SM;
      SourceLocation Before;
      const Expr *Last = nullptr;
      bool Whole = false; ///< Assigned as a whole (or a part above the field).
      void assigned(SourceLocation Where, const Expr *LHS, const Expr *RHS) {
        if (!SM->isBeforeInTranslationUnit(Where, Before))
          return;
        llvm::SmallVector<const FieldDecl *, 4> Fields;
        if (Root ? Self->rootOf(LHS, Fields) != Root
                 : !rootedAtThis(LHS, Fields))
          return;
        if (Fields.size() > Path.size() ||
            !std::equal(Fields.begin(), Fields.end(), Path.begin()))
          return;
        if (Fields.size() == Path.size()) {
          Last = RHS;
          Whole = false;
        } else {
          Whole = true;
        }
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->getOpcode() == BO_Assign)
          assigned(B->getBeginLoc(), B->getLHS(), B->getRHS());
        return true;
      }
      // `cfg.blockDim = dim3(256)` calls dim3's assignment operator.
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
        if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
          assigned(Op->getBeginLoc(), Op->getArg(0), Op->getArg(1));
        return true;
      }
    } A;
    A.Self = this;
    A.Root = Root;
    A.Path = Path;
    A.SM = &Ctx.getSourceManager();
    A.Before = Before;
    A.TraverseStmt(Fn->getBody());
    if (A.Whole) {
      Why = "the configuration is assigned as a whole";
      return std::nullopt;
    }
    if (A.Last)
      return value(A.Last, Why, Depth + 1);
    if (Root)
      return initialValue(Root->getInit(), Path, Why, Depth + 1);
    // The object a constructor builds: its member initializer (an implicit
    // one for a default member initializer).
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Fn))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getMember() == Path.front())
          return initialValue(Init->getInit(), Path.drop_front(), Why,
                              Depth + 1);
    Why = "it is never set";
    return std::nullopt;
  }

  /// The fields \p Path of what \p Init initializes.
  std::optional<APValue> initialValue(const Expr *Init,
                                      llvm::ArrayRef<const FieldDecl *> Path,
                                      std::string &Why, int Depth) {
    if (!Init || Depth > 32) {
      Why = "it is never set";
      return std::nullopt;
    }
    if (Path.empty())
      return value(Init, Why, Depth + 1);
    const Expr *E = Init->IgnoreImplicit();
    if (const auto *D = dyn_cast<CXXDefaultInitExpr>(E))
      E = D->getExpr()->IgnoreImplicit();
    if (isa<ImplicitValueInitExpr>(E))
      return integer(0);
    // `T(x)`, a construction written as a cast.
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E);
        Cast && Cast->getCastKind() == CK_ConstructorConversion)
      E = Cast->getSubExpr()->IgnoreImplicit();
    if (const auto *List = dyn_cast<InitListExpr>(E)) {
      const InitListExpr *Sem =
          List->isSemanticForm() ? List : List->getSemanticForm();
      const unsigned I = Path.front()->getFieldIndex();
      if (!Sem)
        return std::nullopt;
      if (I >= Sem->getNumInits())
        return integer(0); // value-initialized
      return initialValue(Sem->getInit(I), Path.drop_front(), Why, Depth + 1);
    }
    // A copy of what a function returns (`LaunchConfig c =
    // make_cluster_launch_config(...)`): the local it returns, as it stands at
    // its end, with this call's arguments.
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(E);
        Copy && Copy->getNumArgs() == 1 &&
        Copy->getConstructor()->isCopyOrMoveConstructor())
      E = Copy->getArg(0)->IgnoreImplicit();
    // Built by a constructor (`auto cfg = ggml_cuda_pdl_config(params)`,
    // which sets `cfg.dynamicSmemBytes = params.shmem` in its body).
    if (const auto *C = dyn_cast<CXXConstructExpr>(E);
        C && !C->getConstructor()->isCopyOrMoveConstructor())
      if (auto V = constructed(C, Path, Why, Depth + 1))
        return V;
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && !isa<CXXOperatorCallExpr>(Call)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
      if (const VarDecl *Returned = Def ? returnedLocal(Def) : nullptr) {
        LaunchEvaluator Inner(Ctx, Def, ReadOnly, Call, this);
        return Inner.stateOf(Returned, Path, Def->getBody()->getEndLoc(), Why,
                             Depth + 1);
      }
    }
    Why = "it is not set from values tilefit can follow";
    return std::nullopt;
  }

  /// The one local variable every `return` of \p Fn returns, if there is one.
  static const VarDecl *returnedLocal(const FunctionDecl *Fn) {
    struct Returns : RecursiveASTVisitor<Returns> {
      const VarDecl *Var = nullptr;
      bool Other = false;
      bool VisitReturnStmt(ReturnStmt *R) {
        const Expr *E =
            R->getRetValue() ? R->getRetValue()->IgnoreImplicit() : nullptr;
        if (const auto *Copy = dyn_cast_or_null<CXXConstructExpr>(E);
            Copy && Copy->getNumArgs() == 1 &&
            Copy->getConstructor()->isCopyOrMoveConstructor())
          E = Copy->getArg(0)->IgnoreImplicit();
        const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
        const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
        if (!VD || !VD->isLocalVarDecl() || (Var && Var != VD))
          Other = true;
        else
          Var = VD;
        return !Other;
      }
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
    } R;
    if (!Fn->getBody())
      return nullptr;
    R.TraverseStmt(Fn->getBody());
    return R.Other ? nullptr : R.Var;
  }

  std::optional<uint64_t> fromValue(const APValue &V, std::string &Why) {
    if (V.isInt()) {
      if (V.getInt().isSigned() && V.getInt().isNegative()) {
        Why = "it is negative (" + std::to_string(V.getInt().getSExtValue()) +
              ")";
        return std::nullopt;
      }
      return V.getInt().getZExtValue();
    }
    if (V.isStruct()) {
      uint64_t Product = 1;
      for (unsigned I = 0; I < V.getStructNumFields(); ++I) {
        const APValue &F = V.getStructField(I);
        if (!F.isInt()) {
          Why = "it is not an integer or a dim3";
          return std::nullopt;
        }
        Product *= F.getInt().getZExtValue();
      }
      return Product;
    }
    Why = "it is not an integer";
    return std::nullopt;
  }

  /// "it depends on 'n', a function parameter" and the like.
  std::string describeRuntimeValue(const Expr *E) {
    struct First : RecursiveASTVisitor<First> {
      const ValueDecl *Found = nullptr;
      bool VisitDeclRefExpr(DeclRefExpr *R) {
        if (!Found &&
            (isa<VarDecl>(R->getDecl()) || isa<FieldDecl>(R->getDecl())))
          Found = R->getDecl();
        return !Found;
      }
      bool VisitMemberExpr(MemberExpr *M) {
        if (!Found && isa<FieldDecl>(M->getMemberDecl()))
          Found = M->getMemberDecl();
        return !Found;
      }
    } F;
    F.TraverseStmt(const_cast<Expr *>(E));
    if (!F.Found)
      return "it depends on a value known only at run time";
    std::string Name = "'" + F.Found->getNameAsString() + "'";
    if (isa<ParmVarDecl>(F.Found))
      return "it depends on " + Name + ", a function parameter";
    if (isa<FieldDecl>(F.Found))
      return "it depends on " + Name + ", a field read at run time";
    if (const auto *VD = dyn_cast<VarDecl>(F.Found); VD && VD->isLocalVarDecl())
      return "it depends on " + Name +
             ", a variable that is assigned at run time";
    return "it depends on " + Name + ", which is not a compile-time constant";
  }

  ASTContext &Ctx;
  const FunctionDecl *Fn;
  llvm::DenseMap<const VarDecl *, bool> *ReadOnly;
  const CallExpr *Site;    ///< The call this evaluator stands for, if any.
  /// The construction this evaluator (of a constructor) stands for, if any.
  const CXXConstructExpr *Construct = nullptr;
  LaunchEvaluator *Caller; ///< The evaluator of the function that makes it.
};

namespace {

void evaluateInto(LaunchEvaluator &Eval, const Expr *Bytes, bool BytesZero,
                  const Expr *Block, LaunchSite &L) {
  std::string Ignored;
  if (Block)
    L.BlockThreads = Eval.evaluate(Block, Ignored);
  if (!Bytes) {
    if (BytesZero)
      L.DynamicBytes = 0;
    else
      L.UnknownReason = "the dynamic shared memory size could not be found";
    return;
  }
  std::string Why;
  L.DynamicBytes = Eval.evaluate(Bytes, Why);
  if (!L.DynamicBytes)
    L.UnknownReason =
        "the dynamic shared memory size is not a compile-time constant: " + Why;
}

/// A cudaLaunchKernelEx/ExC launch's block size and bytes, read out of its
/// configuration.
void evaluateConfig(LaunchEvaluator &Eval, const Expr *Config,
                    SourceLocation Launch, LaunchSite &L) {
  bool Found = false;
  std::string Why;
  auto Bytes = Eval.configField(Config, "dynamicSmemBytes", Launch, Found, Why);
  if (!Found) {
    L.UnknownReason =
        "the launch configuration is not a local cudaLaunchConfig_t of this "
        "function";
    return;
  }
  std::string Ignored;
  if (Bytes)
    L.DynamicBytes = Eval.number(*Bytes, Why);
  if (!L.DynamicBytes)
    L.UnknownReason =
        "the dynamic shared memory size is not a compile-time constant: " + Why;
  bool BlockFound = false;
  if (auto Block =
          Eval.configField(Config, "blockDim", Launch, BlockFound, Ignored))
    L.BlockThreads = Eval.number(*Block, Ignored);
}

} // namespace

/// Which function each launch or call of the unit's own code is in: one walk
/// over the functions outside system headers (forCallable would build the
/// parent map of the whole unit, CUB's headers and all, at the first launch).
class LaunchCollector::FunctionIndex
    : public RecursiveASTVisitor<FunctionIndex> {
public:
  explicit FunctionIndex(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
    for (Decl *D : Ctx.getTraversalScope())
      TraverseDecl(D);
  }

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // Namespaces and linkage specifications open anywhere; other declarations
    // of system headers hold no launch tilefit reports.
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.push_back(FD);
    bool Ok = RecursiveASTVisitor::TraverseDecl(D);
    if (FD && FD->doesThisDeclarationHaveABody())
      Open.pop_back();
    return Ok;
  }

  bool TraverseLambdaExpr(LambdaExpr *E) {
    Open.push_back(E->getCallOperator());
    bool Ok = RecursiveASTVisitor::TraverseLambdaExpr(E);
    Open.pop_back();
    return Ok;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (Open.empty())
      return true;
    Of[E] = Open.back();
    // The calls a launch helper's call sites are found among: made from code
    // that is not a template pattern, to a function (not an operator).
    if (const FunctionDecl *Callee = E->getDirectCallee();
        Callee && !isa<CXXOperatorCallExpr>(E) && !Open.back()->isTemplated())
      CallsTo[Callee->getCanonicalDecl()].push_back(E);
    return true;
  }

  const FunctionDecl *of(const Stmt *S) const { return Of.lookup(S); }
  llvm::ArrayRef<const CallExpr *> callsTo(const FunctionDecl *F) const {
    auto It = CallsTo.find(F->getCanonicalDecl());
    return It == CallsTo.end() ? llvm::ArrayRef<const CallExpr *>()
                               : It->second;
  }

private:
  const SourceManager &SM;
  std::vector<const FunctionDecl *> Open;
  llvm::DenseMap<const Stmt *, const FunctionDecl *> Of;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 2>>
      CallsTo;
};

LaunchCollector::LaunchCollector() = default;
LaunchCollector::~LaunchCollector() = default;

const FunctionDecl *LaunchCollector::enclosingFunction(ASTContext &Ctx,
                                                       const Stmt *Call) {
  if (!Index)
    Index = std::make_unique<FunctionIndex>(Ctx);
  return Index->of(Call);
}

llvm::ArrayRef<const CallExpr *>
LaunchCollector::callsTo(ASTContext &Ctx, const FunctionDecl *F) {
  if (!Index)
    Index = std::make_unique<FunctionIndex>(Ctx);
  return Index->callsTo(F);
}

void LaunchCollector::registerMatchers(MatchFinder &Finder) {
  // Launches and calls in the project's own code (not in system headers such as
  // CUB's dispatch layers); run() keeps those in functions that are not
  // template patterns: instantiations are visited with their concrete
  // arguments.
  auto InUserCode = unless(isExpansionInSystemHeader());
  Finder.addMatcher(cudaKernelCallExpr(InUserCode).bind("chevron"), this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasAnyName(
                   "::cudaLaunchKernel", "::cudaLaunchCooperativeKernel",
                   "::cudaLaunchKernelEx", "::cudaLaunchKernelExC"))),
               InUserCode)
          .bind("api"),
      this);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("::cudaFuncSetAttribute"))),
               InUserCode)
          .bind("attribute"),
      this);
}

/// Whether \p Target sits in a branch of \p Fn that never runs: under an `if`
/// whose condition is a constant there (`if (smem_size >= (48 << 10))` with
/// smem_size a constant of the instantiation), on the side the condition does
/// not take.

std::optional<uint64_t> parseStatedDynamicSize(llvm::StringRef Line) {
  static constexpr llvm::StringLiteral Marker = "tilefit-dynamic-smem:";
  size_t At = Line.find(Marker);
  if (At == llvm::StringRef::npos)
    return std::nullopt;
  // Only in a comment: `//` or `/*` before the marker on the line.
  size_t Slash = Line.substr(0, At).find("//");
  if (Slash == llvm::StringRef::npos)
    Slash = Line.substr(0, At).find("/*");
  if (Slash == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = Line.substr(At + Marker.size()).ltrim();
  llvm::StringRef Digits = Rest.take_while(llvm::isDigit);
  uint64_t Value = 0;
  if (Digits.empty() || Digits.getAsInteger(10, Value))
    return std::nullopt;
  llvm::StringRef Unit = Rest.drop_front(Digits.size()).ltrim();
  uint64_t Scale = 1;
  if (Unit.starts_with("KiB"))
    Scale = 1024;
  else if (Unit.starts_with("MiB"))
    Scale = 1024 * 1024;
  if (Value > UINT64_MAX / Scale)
    return std::nullopt;
  return Value * Scale;
}

/// The size a `// tilefit-dynamic-smem: N` comment states for the launch at
/// \p Loc: on its line, or alone on the line above it.
static std::optional<uint64_t> statedDynamicSize(const SourceManager &SM,
                                                 SourceLocation Loc) {
  Loc = SM.getExpansionLoc(Loc);
  if (Loc.isInvalid())
    return std::nullopt;
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid || Offset > Buffer.size())
    return std::nullopt;
  const size_t Newline =
      Offset ? Buffer.rfind('\n', Offset - 1) : llvm::StringRef::npos;
  const size_t Start = Newline == llvm::StringRef::npos ? 0 : Newline + 1;
  size_t End = Buffer.find('\n', Offset);
  llvm::StringRef Line = Buffer.slice(Start, End);
  if (auto V = parseStatedDynamicSize(Line))
    return V;
  if (Start == 0)
    return std::nullopt;
  size_t PrevStart = Buffer.rfind('\n', Start - 1);
  PrevStart = PrevStart == llvm::StringRef::npos ? 0 : PrevStart + 1;
  llvm::StringRef Prev = Buffer.slice(PrevStart, Start - 1).trim();
  if (Prev.starts_with("//") || Prev.starts_with("/*"))
    return parseStatedDynamicSize(Prev);
  return std::nullopt;
}

/// Whether \p Target sits in a branch of \p Fn that never runs: under an `if`
/// whose condition is a constant there (`if (smem_size >= (48 << 10))` with
/// smem_size a constant of the instantiation, or a parameter a call site binds
/// to one), on the side the condition does not take.
static bool inDeadBranch(const Stmt *Target, const FunctionDecl *Fn,
                         LaunchEvaluator &Eval) {
  struct Path : RecursiveASTVisitor<Path> {
    const Stmt *Target;
    std::vector<std::pair<const IfStmt *, bool>> Open, Found;
    bool Done = false;
    bool TraverseIfStmt(IfStmt *If) {
      if (Done)
        return false;
      if (If->getInit() && !TraverseStmt(If->getInit()))
        return false;
      if (!TraverseStmt(If->getCond()))
        return false;
      for (bool Then : {true, false}) {
        Stmt *Branch = Then ? If->getThen() : If->getElse();
        if (!Branch)
          continue;
        Open.push_back({If, Then});
        bool Ok = TraverseStmt(Branch);
        Open.pop_back();
        if (!Ok)
          return false;
      }
      return true;
    }
    bool VisitStmt(Stmt *S) {
      if (S == Target) {
        Found = Open;
        Done = true;
        return false;
      }
      return true;
    }
  } P;
  P.Target = Target;
  if (!Fn || !Fn->getBody())
    return false;
  P.TraverseStmt(Fn->getBody());
  for (const auto &[If, Then] : P.Found) {
    if (If->isConsteval())
      continue;
    if (auto C = Eval.condition(If->getCond()); C && (*C != 0) != Then)
      return true;
  }
  return false;
}

namespace {

/// What one launch or opt-in reads as with an evaluator's bindings.
struct Reading {
  bool Ignore =
      false; ///< Nothing to record (an attribute tilefit does not read, ...).
  bool Attribute = false; ///< A cudaFuncSetAttribute call, not a launch.
  const FunctionDecl *Kernel = nullptr;
  LaunchSite L;
  AttributeCall A;
  const Expr *KernelArg = nullptr; ///< The kernel as the launch writes it.
  /// What is not known depends on a parameter of the outermost function: its
  /// call sites may tell it.
  bool NeedsCaller = false;
};

/// Reads the launch or attribute call \p Matched with \p Eval.
Reading read(ASTContext &Ctx, const Stmt *Matched, LaunchEvaluator &Eval) {
  const SourceManager &SM = Ctx.getSourceManager();
  LaunchEvaluator &Top = Eval.top();
  Reading R;
  // The kernel first, then the values: which of them needs a caller.
  auto Kernel = [&](const Expr *E) {
    Top.ReachedParameter = false;
    Top.KernelGivenUp = nullptr;
    R.KernelArg = E;
    R.Kernel = Eval.kernel(E);
    const bool KernelNeeds = Top.ReachedParameter;
    Top.ReachedParameter = false;
    return KernelNeeds;
  };
  if (const auto *Call = dyn_cast<CUDAKernelCallExpr>(Matched)) {
    R.L.Form = "<<<>>>";
    R.L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const CallExpr *Config = Call->getConfig();
    bool KernelNeeds = false;
    if (const FunctionDecl *Direct = Call->getDirectCallee())
      R.Kernel = Direct, R.KernelArg = Call->getCallee();
    else
      KernelNeeds = Kernel(Call->getCallee());
    if (!Config || Config->getNumArgs() < 2 ||
        (!R.Kernel && Call->containsErrors())) {
      R.Ignore = true;
      return R;
    }
    const Expr *Bytes = Config->getNumArgs() >= 3 ? Config->getArg(2) : nullptr;
    bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
    evaluateInto(Eval, Default ? nullptr : Bytes, Default, Config->getArg(1),
                 R.L);
    R.NeedsCaller =
        R.Kernel ? !R.L.DynamicBytes && Top.ReachedParameter : KernelNeeds;
    return R;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Matched);
      Call && Call->getDirectCallee() &&
      Call->getDirectCallee()->getName() != "cudaFuncSetAttribute") {
    R.L.Form = Call->getDirectCallee()->getName().str();
    R.L.Loc = toSourcePos(SM, Call->getBeginLoc());
    const bool Ex =
        R.L.Form == "cudaLaunchKernelEx" || R.L.Form == "cudaLaunchKernelExC";
    const unsigned KernelIndex = Ex ? 1 : 0;
    if (Call->getNumArgs() <= KernelIndex || Call->containsErrors()) {
      R.Ignore = true;
      return R;
    }
    const bool KernelNeeds = Kernel(Call->getArg(KernelIndex));
    if (Ex) {
      evaluateConfig(Eval, Call->getArg(0), Call->getBeginLoc(), R.L);
    } else {
      // cudaLaunchKernel(func, grid, block, args, sharedMem = 0, stream = 0),
      // and the same for cudaLaunchCooperativeKernel.
      const Expr *Bytes = Call->getNumArgs() > 4 ? Call->getArg(4) : nullptr;
      bool Default = !Bytes || isa<CXXDefaultArgExpr>(Bytes);
      evaluateInto(Eval, Default ? nullptr : Bytes, Default,
                   Call->getNumArgs() > 2 ? Call->getArg(2) : nullptr, R.L);
    }
    R.NeedsCaller =
        R.Kernel ? !R.L.DynamicBytes && Top.ReachedParameter : KernelNeeds;
    return R;
  }
  const auto *Call = cast<CallExpr>(Matched);
  R.Attribute = true;
  R.Ignore = true;
  if (Call->getNumArgs() < 3)
    return R;
  R.A.Loc = toSourcePos(SM, Call->getBeginLoc());
  Expr::EvalResult Which;
  if (!Call->getArg(1)->EvaluateAsRValue(Which, Ctx) || !Which.Val.isInt())
    return R; // an attribute chosen at run time: not one tilefit reads
  // cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  // ...PreferredSharedMemoryCarveout = 9 (driver_types.h).
  int64_t Attr = Which.Val.getInt().getSExtValue();
  if (Attr == 8)
    R.A.Attribute = AttributeCall::Kind::MaxDynamicSharedMemorySize;
  else if (Attr == 9)
    R.A.Attribute = AttributeCall::Kind::PreferredSharedMemoryCarveout;
  else
    return R;
  R.Ignore = false;
  const bool KernelNeeds = Kernel(Call->getArg(0));
  std::string Why;
  if (auto V = Eval.evaluate(Call->getArg(2), Why))
    R.A.Value = static_cast<int64_t>(*V);
  else
    R.A.UnknownReason = "the value is not a compile-time constant: " + Why;
  // An opt-in for a kernel not known statically: no launch of it is either.
  R.NeedsCaller = R.Kernel ? !R.A.Value && Top.ReachedParameter : KernelNeeds;
  if (!R.Kernel && !R.NeedsCaller)
    R.Ignore = true;
  return R;
}

std::string sourceText(ASTContext &Ctx, const Expr *E) {
  CharSourceRange Range =
      CharSourceRange::getTokenRange(E->IgnoreImplicit()->getSourceRange());
  std::string Text =
      Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
          .str();
  return Text.empty() ? std::string("?") : Text;
}

} // namespace

void LaunchCollector::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Matched = nullptr;
  for (const char *Id : {"chevron", "api", "attribute"})
    if (!Matched)
      Matched = Result.Nodes.getNodeAs<Stmt>(Id);
  const FunctionDecl *Fn = Matched ? enclosingFunction(Ctx, Matched) : nullptr;
  if (!Fn || Fn->isTemplated())
    return;
  LaunchEvaluator Eval(Ctx, Fn, &ReadOnly);
  // A kernel template's launch with an error in it: which specialization it
  // launches is not decided, and none is instantiated for it.
  if (const auto *Call = dyn_cast<CUDAKernelCallExpr>(Matched);
      Call && !Call->getDirectCallee() && Call->containsErrors() &&
      !inDeadBranch(Call, Fn, Eval))
    if (const auto *Named =
            dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreImplicit());
        Named && llvm::any_of(Named->decls(), [](const NamedDecl *D) {
          const auto *T =
              dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl());
          return T && T->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>();
        })) {
      CharSourceRange R =
          CharSourceRange::getTokenRange(Named->getSourceRange());
      Lost.push_back({toSourcePos(SM, Call->getBeginLoc()),
                      Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str(),
                      false, ""});
      return;
    }
  follow(Ctx, Matched, Eval, Eval, nullptr, 0);
}

void LaunchCollector::follow(ASTContext &Ctx, const Stmt *Matched,
                             LaunchEvaluator &Inner, LaunchEvaluator &Top,
                             const CallExpr *At, int Depth) {
  // Code under a condition that is false here does not run: no launch, no
  // opt-in.
  if (inDeadBranch(Matched, Inner.function(), Inner))
    return;
  Reading R = read(Ctx, Matched, Inner);
  if (R.Ignore)
    return;
  if (Depth == 0)
    AtLaunch = {R.Kernel != nullptr, R.L.DynamicBytes.has_value(),
                R.L.BlockThreads.has_value(), R.A.Value.has_value()};
  // A launch helper (`ClusterLauncher::launch(grid, cluster, block, smem,
  // stream, kernel, params)`): read again at each call of the outermost
  // function, with its arguments.
  if (R.NeedsCaller && Depth < 6) {
    llvm::ArrayRef<const CallExpr *> Sites = callsTo(Ctx, Top.function());
    bool Any = false;
    for (const CallExpr *Site : Sites) {
      const FunctionDecl *Caller = enclosingFunction(Ctx, Site);
      if (!Caller || Caller->isTemplated() || Inner.onChain(Caller))
        continue;
      Any = true;
      LaunchEvaluator Outer(Ctx, Caller, &ReadOnly);
      if (inDeadBranch(Site, Caller, Outer))
        continue;
      Top.bind(Site, &Outer);
      follow(Ctx, Matched, Inner, Outer, Site, Depth + 1);
      Top.bind(nullptr, nullptr);
    }
    if (Any)
      return;
    // Nothing in this unit calls it: a helper in a header is called by the
    // units that include it, and is read there.
    const SourceManager &SM = Ctx.getSourceManager();
    if (!R.Kernel &&
        !SM.isInMainFile(SM.getExpansionLoc(Top.function()->getLocation())))
      return;
  }
  // Through a helper: at the call that told the rest, in the helper's name.
  std::string Via;
  if (At) {
    const FunctionDecl *Helper = At->getDirectCallee();
    Via = " through " +
          (Helper ? Helper->getQualifiedNameAsString() : std::string("?"));
  }
  const SourcePos Loc =
      At ? toSourcePos(Ctx.getSourceManager(), At->getBeginLoc()) : SourcePos();
  // A call that decided nothing the launch lacked (its size still unknown,
  // say, read at run time by the caller) is no place for it: the launch's own
  // line is.
  const bool Decided =
      At && ((!AtLaunch.Kernel && R.Kernel) ||
             (R.Attribute ? !AtLaunch.Value && R.A.Value.has_value()
                          : (!AtLaunch.Bytes && R.L.DynamicBytes) ||
                                (!AtLaunch.Threads && R.L.BlockThreads)));
  if (R.Attribute) {
    if (!R.Kernel)
      return; // an opt-in for a kernel not known statically: no launch of it is
              // either
    if (Decided)
      R.A.Loc = Loc;
    else if (At)
      for (const auto &[K, A] : Attributes)
        if (A.Loc.File == R.A.Loc.File && A.Loc.Line == R.A.Loc.Line &&
            A.Loc.Column == R.A.Loc.Column && A.Value == R.A.Value)
          return; // the same reading through another call
    Attributes.push_back(
        {R.Kernel->getDefinition() ? R.Kernel->getDefinition() : R.Kernel,
         R.A});
    return;
  }
  if (!R.Kernel) {
    // A size of zero loses nothing.
    if (R.L.DynamicBytes && *R.L.DynamicBytes == 0)
      return;
    // At a call of a helper: the argument the kernel could not be told from.
    const Expr *GivenUp =
        At && Top.KernelGivenUp ? Top.KernelGivenUp : R.KernelArg;
    LostLaunch L{At ? Loc : R.L.Loc, sourceText(Ctx, GivenUp),
                 /*Unresolved=*/true, ""};
    // A helper's own parameter: the kernel is its caller's.
    const Expr *Bare = GivenUp->IgnoreParenImpCasts();
    while (const auto *Cast = dyn_cast<ExplicitCastExpr>(Bare))
      Bare = Cast->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Bare))
      if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        if (const auto *F = dyn_cast_or_null<FunctionDecl>(P->getDeclContext()))
          L.Helper = F->getQualifiedNameAsString();
    Unresolved.push_back(std::move(L));
    return;
  }
  const FunctionDecl *Kernel =
      R.Kernel->getDefinition() ? R.Kernel->getDefinition() : R.Kernel;
  if (At && Decided) {
    R.L.Loc = Loc;
    R.L.Form += Via;
  }
  // A size tilefit cannot compute, stated by a comment where the launch is
  // reported.
  if (!R.L.DynamicBytes)
    if (auto Stated = statedDynamicSize(
            Ctx.getSourceManager(),
            At && Decided ? At->getBeginLoc() : Matched->getBeginLoc())) {
      R.L.DynamicBytes = *Stated;
      R.L.UnknownReason.clear();
      R.L.StatedBy = "comment";
    }
  if (At) {
    // The same call read through two launches of the helper (its branches) is
    // one launch; so is the launch read the same through two calls that
    // decided nothing.
    for (const auto &[K, L] : Launches)
      if (K == Kernel && L.Loc.File == R.L.Loc.File &&
          L.Loc.Line == R.L.Loc.Line && L.Loc.Column == R.L.Loc.Column &&
          L.DynamicBytes == R.L.DynamicBytes &&
          L.BlockThreads == R.L.BlockThreads)
        return;
  }
  Launches.push_back({Kernel, R.L});
}

std::vector<HostKernelCalls> hostKernelCalls(ASTContext &Ctx,
                                             const LaunchCollector &Collector) {
  KernelNamer Namer(Ctx);
  std::vector<HostKernelCalls> Out;
  llvm::DenseMap<const FunctionDecl *, size_t> Index;
  auto Entry = [&](const FunctionDecl *K) -> HostKernelCalls & {
    auto [It, New] = Index.try_emplace(K, Out.size());
    if (New) {
      Out.emplace_back();
      Out.back().Mangled = Namer.mangled(K);
    }
    return Out[It->second];
  };
  for (const auto &[K, L] : Collector.Launches)
    Entry(K).Launches.push_back(L);
  for (const auto &[K, A] : Collector.Attributes)
    Entry(K).Attributes.push_back(A);
  return Out;
}

std::optional<uint64_t> evaluateConstant(ASTContext &Ctx,
                                         const FunctionDecl *Fn, const Expr *E,
                                         std::string &Why) {
  return LaunchEvaluator(Ctx, Fn).evaluate(E, Why);
}

std::optional<LaunchBounds> launchBoundsOf(const FunctionDecl *Kernel) {
  const auto *A = Kernel->getAttr<CUDALaunchBoundsAttr>();
  if (!A)
    return std::nullopt;
  const ASTContext &Ctx = Kernel->getASTContext();
  LaunchBounds B;
  B.Loc = toSourcePos(Ctx.getSourceManager(), A->getLocation());
  auto Eval = [&](const Expr *E) -> std::optional<uint64_t> {
    Expr::EvalResult R;
    if (E && !E->isValueDependent() && E->EvaluateAsInt(R, Ctx) &&
        !R.Val.getInt().isNegative())
      return R.Val.getInt().getZExtValue();
    return std::nullopt;
  };
  B.MaxThreads = Eval(A->getMaxThreads());
  B.MinBlocks = Eval(A->getMinBlocks());
  return B;
}

} // namespace matchers
} // namespace tilefit
