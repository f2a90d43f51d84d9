//===- LaunchEvaluator.cpp - The values of a launch's arguments -----------===//
#include "LaunchEvaluator.h"
#include "ReadOnlyLocals.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

using namespace clang;

namespace tilefit {
namespace matchers {

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

bool LaunchEvaluator::onChain(const FunctionDecl *F) const {
  for (const LaunchEvaluator *E = this; E; E = E->Caller)
    if (E->Fn == F)
      return true;
  return false;
}

void LaunchEvaluator::bind(const CallExpr *Call, LaunchEvaluator *Outer) {
  Site = Call;
  Caller = Outer;
}

bool LaunchEvaluator::initializedOnly(const VarDecl *VD) {
  if (!VD->isLocalVarDecl() || !VD->getInit() || !Fn || !Fn->getBody())
    return false;
  if (!ReadOnly)
    return neverWritten(VD, Fn->getBody());
  auto [It, New] = ReadOnly->try_emplace(VD, false);
  if (New)
    It->second = neverWritten(VD, Fn->getBody());
  return It->second;
}

std::optional<uint64_t> LaunchEvaluator::evaluate(const Expr *E, Reason &Why,
                                                  int Depth) {
  auto V = value(E, Why, Depth);
  return V ? fromValue(*V, Why) : std::nullopt;
}

std::optional<uint64_t> LaunchEvaluator::number(const APValue &V, Reason &Why) {
  return fromValue(V, Why);
}

std::vector<uint64_t> LaunchEvaluator::shape(const Expr *E) {
  Reason Ignored;
  auto V = value(E, Ignored, 0);
  return V ? shapeOf(*V) : std::vector<uint64_t>{};
}

std::vector<uint64_t> LaunchEvaluator::shapeOf(const APValue &V) {
  if (V.isInt())
    return V.getInt().isSigned() && V.getInt().isNegative()
               ? std::vector<uint64_t>{}
               : std::vector<uint64_t>{V.getInt().getZExtValue(), 1, 1};
  if (!V.isStruct() || V.getStructNumFields() != 3)
    return {};
  std::vector<uint64_t> Shape;
  for (unsigned I = 0; I < 3; ++I) {
    const APValue &F = V.getStructField(I);
    if (!F.isInt())
      return {};
    Shape.push_back(F.getInt().getZExtValue());
  }
  return Shape;
}

std::optional<int64_t> LaunchEvaluator::condition(const Expr *E, int Depth) {
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
  Reason Ignored;
  if (auto V = value(E, Ignored, Depth + 1); V && V->isInt())
    return V->getInt().getExtValue();
  return std::nullopt;
}

const FunctionDecl *LaunchEvaluator::kernel(const Expr *E, int Depth) {
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

std::optional<APValue> LaunchEvaluator::configField(const Expr *Config,
                                                    StringRef Name,
                                                    SourceLocation Before,
                                                    bool &Found, Reason &Why,
                                                    int Depth) {
  Found = false;
  if (!Config || Depth > 8 || !Fn || !Fn->getBody())
    return std::nullopt;
  const Expr *E = Config->IgnoreParenImpCasts();
  // A pointer parameter bound at a call site: the caller's configuration,
  // before the call.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
      if (const Expr *A = argumentFor(P))
        return Caller->configField(A, Name, siteLoc(), Found, Why, Depth + 1);
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

const Expr *LaunchEvaluator::argumentFor(const ParmVarDecl *P) const {
  if (!(Site || Construct) || !Caller || P->getDeclContext() != Fn)
    return nullptr;
  unsigned I = P->getFunctionScopeIndex();
  if (Construct)
    return I < Construct->getNumArgs() ? Construct->getArg(I) : nullptr;
  return I < Site->getNumArgs() ? Site->getArg(I) : nullptr;
}

SourceLocation LaunchEvaluator::siteLoc() const {
  return Construct ? Construct->getBeginLoc() : Site->getBeginLoc();
}

std::optional<APValue>
LaunchEvaluator::constructed(const CXXConstructExpr *C,
                             llvm::ArrayRef<const FieldDecl *> Path,
                             Reason &Why, int Depth) {
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

bool LaunchEvaluator::rootedAtThis(
    const Expr *E, llvm::SmallVectorImpl<const FieldDecl *> &Path) {
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

bool LaunchEvaluator::ownParameter(const ParmVarDecl *P) {
  if (Caller || P->getDeclContext() != Fn)
    return false;
  ReachedParameter = true;
  return true;
}

APValue LaunchEvaluator::integer(int64_t V) {
  return APValue(llvm::APSInt(llvm::APInt(64, V, true), false));
}

std::optional<APValue> LaunchEvaluator::value(const Expr *E, Reason &Why,
                                              int Depth) {
  if (!E) {
    Why = ReasonKind::ValueMissing;
    return std::nullopt;
  }
  if (Depth > 32) {
    Why = ReasonKind::ValueTooDeep;
    return std::nullopt;
  }
  E = E->IgnoreImplicit();
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
    E = D->getExpr()->IgnoreImplicit();
  if (const auto *D = dyn_cast<CXXDefaultInitExpr>(E))
    E = D->getExpr()->IgnoreImplicit();
  if (E->isValueDependent() || E->isTypeDependent()) {
    Why = ReasonKind::ValueDependent;
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
    Reason Inner;
    if (!Path.empty()) {
      if (auto V = field(Base, Path, Inner, Depth + 1))
        return V;
    }
    if (!Inner.empty()) {
      Why = std::move(Inner);
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

std::optional<APValue>
LaunchEvaluator::field(const Expr *Base, llvm::ArrayRef<const FieldDecl *> Path,
                       Reason &Why, int Depth) {
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

bool LaunchEvaluator::isDim3(QualType T) {
  const RecordDecl *RD = T->getAsRecordDecl();
  return RD && RD->getName() == "dim3";
}

std::optional<APValue> LaunchEvaluator::dim3Value(const Expr *E, int Depth) {
  const auto *C = dyn_cast<CXXConstructExpr>(E);
  if (!C || !isDim3(C->getType()) || C->getNumArgs() != 3 || Depth > 32)
    return std::nullopt;
  APValue V(APValue::UninitStruct(), 0, 3);
  for (unsigned I = 0; I < 3; ++I) {
    Reason Ignored;
    auto F = value(C->getArg(I), Ignored, Depth + 1);
    if (!F || !F->isInt())
      return std::nullopt;
    V.getStructField(I) = *F;
  }
  return V;
}

const VarDecl *LaunchEvaluator::rootOf(
    const Expr *E, llvm::SmallVectorImpl<const FieldDecl *> &Path, int Depth) {
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

std::optional<APValue>
LaunchEvaluator::stateOf(const VarDecl *Root,
                         llvm::ArrayRef<const FieldDecl *> Path,
                         SourceLocation Before, Reason &Why, int Depth) {
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
      if (Root ? Self->rootOf(LHS, Fields) != Root : !rootedAtThis(LHS, Fields))
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
    Why = ReasonKind::ConfigAssignedWhole;
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
        return initialValue(Init->getInit(), Path.drop_front(), Why, Depth + 1);
  Why = ReasonKind::ValueNeverSet;
  return std::nullopt;
}

std::optional<APValue>
LaunchEvaluator::initialValue(const Expr *Init,
                              llvm::ArrayRef<const FieldDecl *> Path,
                              Reason &Why, int Depth) {
  if (!Init || Depth > 32) {
    Why = ReasonKind::ValueNeverSet;
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
  Why = ReasonKind::ValueNotFollowed;
  return std::nullopt;
}

const VarDecl *LaunchEvaluator::returnedLocal(const FunctionDecl *Fn) {
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

std::optional<uint64_t> LaunchEvaluator::fromValue(const APValue &V,
                                                   Reason &Why) {
  if (V.isInt()) {
    if (V.getInt().isSigned() && V.getInt().isNegative()) {
      Why = {ReasonKind::ValueNegative,
             {std::to_string(V.getInt().getSExtValue())}};
      return std::nullopt;
    }
    return V.getInt().getZExtValue();
  }
  if (V.isStruct()) {
    uint64_t Product = 1;
    for (unsigned I = 0; I < V.getStructNumFields(); ++I) {
      const APValue &F = V.getStructField(I);
      if (!F.isInt()) {
        Why = ReasonKind::ValueNotIntegerOrDim3;
        return std::nullopt;
      }
      Product *= F.getInt().getZExtValue();
    }
    return Product;
  }
  Why = ReasonKind::ValueNotInteger;
  return std::nullopt;
}

Reason LaunchEvaluator::describeRuntimeValue(const Expr *E) {
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
    return ReasonKind::ValueAtRunTime;
  std::vector<std::string> Name = {F.Found->getNameAsString()};
  if (isa<ParmVarDecl>(F.Found))
    return {ReasonKind::ValueParameter, Name};
  if (isa<FieldDecl>(F.Found))
    return {ReasonKind::ValueRunTimeField, Name};
  if (const auto *VD = dyn_cast<VarDecl>(F.Found); VD && VD->isLocalVarDecl())
    return {ReasonKind::ValueAssigned, Name};
  return {ReasonKind::ValueNotConstant, Name};
}

void evaluateInto(LaunchEvaluator &Eval, const Expr *Bytes, bool BytesZero,
                  const Expr *Block, LaunchSite &L) {
  Reason Ignored;
  if (Block) {
    L.BlockThreads = Eval.evaluate(Block, Ignored);
    if (L.BlockThreads)
      L.BlockShape = Eval.shape(Block);
  }
  if (!Bytes) {
    if (BytesZero)
      L.DynamicBytes = 0;
    else
      L.UnknownReason = ReasonKind::DynamicSizeNotFound;
    return;
  }
  Reason Why;
  L.DynamicBytes = Eval.evaluate(Bytes, Why);
  if (!L.DynamicBytes)
    L.UnknownReason =
        Reason::resting(ReasonKind::DynamicSizeNotConstant, std::move(Why));
}

/// A cudaLaunchKernelEx/ExC launch's block size and bytes, read out of its
/// configuration.
void evaluateConfig(LaunchEvaluator &Eval, const Expr *Config,
                    SourceLocation Launch, LaunchSite &L) {
  bool Found = false;
  Reason Why;
  auto Bytes = Eval.configField(Config, "dynamicSmemBytes", Launch, Found, Why);
  if (!Found) {
    L.UnknownReason = ReasonKind::ConfigNotLocal;
    return;
  }
  Reason Ignored;
  if (Bytes)
    L.DynamicBytes = Eval.number(*Bytes, Why);
  if (!L.DynamicBytes)
    L.UnknownReason =
        Reason::resting(ReasonKind::DynamicSizeNotConstant, std::move(Why));
  bool BlockFound = false;
  if (auto Block =
          Eval.configField(Config, "blockDim", Launch, BlockFound, Ignored)) {
    L.BlockThreads = Eval.number(*Block, Ignored);
    if (L.BlockThreads)
      L.BlockShape = LaunchEvaluator::shapeOf(*Block);
  }
}

} // namespace matchers
} // namespace tilefit
