//===- SliceNames.cpp - What code names, for the body slicer --------------===//
//
// NameScan walks a stretch of code as written (a template's pattern, no
// instantiations, no implicit code) and records what BodySlicer.h's rules ask
// of it (SliceNames.h's Names): `__shared__` variables named, calls resolved
// or by name, dependent operators, default constructions and the type
// declarations they name, declarations made and locals used, launches,
// Tensor Memory allocations, returns and labels. Also the keys the closure
// uses for functions (nodeOf) and type declarations (normalizedType).
//
//===----------------------------------------------------------------------===//
#include "SliceNames.h"

#include "tilefit/matchers/ScopeFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Basic/TargetOptions.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace tilefit {
namespace matchers {
namespace slicing {

using namespace clang;

bool deviceCallable(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAGlobalAttr>();
}

const FunctionDecl *nodeOf(const FunctionDecl *FD) {
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  else if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
    FD = T->getTemplatedDecl();
  else if (const FunctionDecl *M = FD->getInstantiatedFromMemberFunction())
    FD = M;
  return FD->getCanonicalDecl();
}

std::string nameOf(const DeclarationName &N) { return N.getAsString(); }

Arities arityOf(unsigned N) { return Arities(1) << std::min(N, 31u); }

Positions parametersAt(const FunctionDecl *FD, Positions At) {
  if (!At || FD->hasCXXExplicitFunctionObjectParameter())
    return At ? AnyPosition : 0;
  for (const ParmVarDecl *P : FD->parameters())
    if (P->isParameterPack()) {
      // The pack and every parameter after it may take any position from
      // the pack's on.
      const Positions From = positionOf(P->getFunctionScopeIndex(), true);
      return (At & ~From) | (At & From ? From : 0);
    }
  return At;
}

Arities aritiesOf(const FunctionDecl *FD) {
  if (isa<CXXConstructorDecl, CXXConversionDecl>(FD) ||
      FD->hasCXXExplicitFunctionObjectParameter())
    return AnyArity;
  const unsigned Min = std::min(FD->getMinRequiredArguments(), 31u);
  unsigned Max = FD->getNumParams();
  if (FD->isVariadic() ||
      llvm::any_of(FD->parameters(),
                   [](const ParmVarDecl *P) { return P->isParameterPack(); }))
    Max = 31;
  Max = std::min(Max, 31u);
  if (Max < Min)
    return AnyArity;
  // Bits Min..Max.
  const Arities UpToMax = Max == 31 ? AnyArity : (Arities(1) << (Max + 1)) - 1;
  return UpToMax & ~((Arities(1) << Min) - 1);
}

DeclKey keyOf(const Decl *D) {
  if (!D)
    return 0;
  if (D->isFromASTFile())
    return (DeclKey(D->getGlobalID().getRawValue()) << 1) | 1;
  return static_cast<DeclKey>(reinterpret_cast<uintptr_t>(D));
}

Decl *declOf(ASTContext &Ctx, DeclKey Key) {
  if (!(Key & 1))
    return reinterpret_cast<Decl *>(static_cast<uintptr_t>(Key));
  clang::ExternalASTSource *Source = Ctx.getExternalSource();
  return Source ? Source->GetExternalDecl(GlobalDeclID(Key >> 1)) : nullptr;
}

const Decl *normalizedType(const Decl *D) {
  if (!D)
    return nullptr;
  if (const auto *T = dyn_cast<ClassTemplateDecl>(D))
    D = T->getTemplatedDecl();
  else if (const auto *A = dyn_cast<TypeAliasTemplateDecl>(D))
    D = A->getTemplatedDecl();
  else if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(D))
    D = S->getSpecializedTemplate()->getTemplatedDecl();
  else if (const auto *R = dyn_cast<CXXRecordDecl>(D))
    if (const CXXRecordDecl *P = R->getInstantiatedFromMemberClass())
      D = P;
  if (!isa<TagDecl, TypedefNameDecl>(D))
    return nullptr;
  return D->getCanonicalDecl();
}

namespace {

/// Whether \p D is a `__shared__` variable.
bool isShared(const Decl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  return VD && VD->hasAttr<CUDASharedAttr>();
}

/// Names whose calls are kept whatever they reach: Tensor Memory allocators
/// (ScopeFacts.h), and the runtime's launches and attribute calls from device
/// code.
bool keptByName(llvm::StringRef Name) {
  return Name == "allocate" || Name == "tcgen05_alloc" ||
         Name.starts_with("cudaLaunch") || Name == "cudaFuncSetAttribute";
}

/// Whether \p Init default-constructs (no initializer, `{}`, `()`).
bool defaultInit(const VarDecl *VD) {
  const Expr *Init = VD->getInit();
  if (!Init)
    return true;
  if (const auto *L = dyn_cast<InitListExpr>(Init))
    return L->getNumInits() == 0;
  if (const auto *P = dyn_cast<ParenListExpr>(Init))
    return P->getNumExprs() == 0;
  return false;
}

/// The type declaration \p TL names, if any.
const Decl *typeDeclOf(TypeLoc TL) {
  if (auto T = TL.getAs<TemplateSpecializationTypeLoc>())
    return normalizedType(
        T.getTypePtr()->getTemplateName().getAsTemplateDecl());
  if (auto T = TL.getAs<DeducedTemplateSpecializationTypeLoc>())
    return normalizedType(
        T.getTypePtr()->getTemplateName().getAsTemplateDecl());
  if (auto T = TL.getAs<TypedefTypeLoc>())
    return normalizedType(T.getTypedefNameDecl());
  if (auto T = TL.getAs<TagTypeLoc>())
    return normalizedType(T.getDecl());
  return nullptr;
}

/// The type declarations a type as written names.
class TypeMentions : public RecursiveASTVisitor<TypeMentions> {
public:
  explicit TypeMentions(llvm::SmallPtrSetImpl<const Decl *> &Out) : Out(Out) {}
  bool VisitTypeLoc(TypeLoc TL) {
    if (const Decl *D = typeDeclOf(TL))
      Out.insert(D);
    Opaque |= !TL.getAs<DecltypeTypeLoc>().isNull() ||
              !TL.getAs<TypeOfExprTypeLoc>().isNull();
    return true;
  }
  /// A type of an expression: what it is cannot be told from its spelling.
  bool Opaque = false;

private:
  llvm::SmallPtrSetImpl<const Decl *> &Out;
};

/// What a stretch of code names and does (Names), as written.
class NameScan : public RecursiveASTVisitor<NameScan> {
public:
  /// What lambda bodies call goes to \p Lambdas (a lambda is called where the
  /// closure cannot see: its call operator has no name); what they refer to,
  /// to \p Out.
  NameScan(const ASTContext &Ctx, const llvm::StringSet<> &SharedNames,
           const llvm::DenseSet<DeclKey> &SharedAliases, const FunctionDecl *Fn,
           Names &Out, Names &Lambdas, bool Relocatable)
      : Ctx(Ctx), SharedNames(SharedNames), SharedAliases(SharedAliases),
        Fn(Fn), Out(Out), Lambdas(Lambdas), Relocatable(Relocatable) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseLambdaExpr(LambdaExpr *E) {
    ++InLambda;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(E);
    --InLambda;
    return R;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasAttr<CUDASharedAttr>())
      direct();
    // A tuple-like binding calls `get` where no name is written.
    if (isa<DecompositionDecl>(VD))
      unresolved(DeclarationName(&Ctx.Idents.get("get")));
    // A range `for`'s begin, end, comparison, increment and dereference are
    // implicit code, which the traversal skips (or, dependent, not yet
    // made): any of those names may run. Its loop variable is among the
    // statement's own parts wherever the loop is scanned.
    if (VD->isCXXForRangeDecl()) {
      for (const char *Name : {"begin", "end"})
        unresolved(DeclarationName(&Ctx.Idents.get(Name)));
      for (OverloadedOperatorKind K :
           {OO_ExclaimEqual, OO_EqualEqual, OO_PlusPlus, OO_Star})
        unresolvedOperator(K);
    }
    if (isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl())
      return true;
    Out.Declares.insert(VD);
    const QualType T = VD->getType();
    if (T->isDependentType() && !T->getContainedAutoType() &&
        !T->isReferenceType() && !T->isPointerType() && defaultInit(VD))
      defaultConstructs(VD->getTypeSourceInfo());
    if (!VD->hasLocalStorage() || InLambda)
      return true;
    if (T->isArrayType() || (!T->isDependentType() && !T->isUndeducedType() &&
                             isPerThreadArray(Ctx, VD)))
      Out.ArrayLocal = true;
    else if (T->isDependentType() || T->isUndeducedType() ||
             T->getContainedAutoType())
      ++Out.MaybeArrayLocals;
    return true;
  }
  bool VisitTypedefNameDecl(TypedefNameDecl *D) {
    Out.Declares.insert(D);
    return true;
  }
  bool VisitTagDecl(TagDecl *D) {
    Out.Declares.insert(D);
    return true;
  }
  bool VisitStaticAssertDecl(StaticAssertDecl *) {
    Out.StaticAssert = true;
    return true;
  }
  bool VisitUsingDecl(UsingDecl *) { return usingDecl(); }
  bool VisitUsingDirectiveDecl(UsingDirectiveDecl *) { return usingDecl(); }
  bool VisitNamespaceAliasDecl(NamespaceAliasDecl *) { return usingDecl(); }
  bool VisitUsingEnumDecl(UsingEnumDecl *) { return usingDecl(); }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    if (isShared(D) || (isa<VarDecl>(D) && SharedAliases.count(keyOf(D))))
      direct();
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      calls(FD);
    refersTo(D);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      calls(FD);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    constructs(E->getConstructor(), 0);
    return true;
  }
  bool VisitCXXNewExpr(CXXNewExpr *E) {
    if (E->getAllocatedType()->isDependentType())
      defaultConstructs(E->getAllocatedTypeSourceInfo());
    unresolvedOperator(E->isArray() ? OO_Array_New : OO_New);
    return true;
  }
  bool VisitCXXUnresolvedConstructExpr(CXXUnresolvedConstructExpr *E) {
    if (E->getNumArgs() == 0 || E->isListInitialization())
      defaultConstructs(E->getTypeSourceInfo());
    return true;
  }
  /// A braced list: of a type known here, it default-initializes the members
  /// it does not list; of a dependent one (an argument of an unresolved call),
  /// it may be any class.
  bool VisitInitListExpr(InitListExpr *E) {
    if (E->isTypeDependent() || E->getType().isNull())
      target().DefaultConstructsUnknown = true;
    else if (const CXXRecordDecl *R = E->getType()->getAsCXXRecordDecl())
      defaultConstructsRecord(R, 0);
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    for (const NamedDecl *D : E->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
        calls(FD);
      else if (const auto *FT =
                   dyn_cast<FunctionTemplateDecl>(D->getUnderlyingDecl()))
        calls(FT->getTemplatedDecl());
    if (const auto *L = dyn_cast<UnresolvedLookupExpr>(E)) {
      // A variable template named with dependent arguments.
      for (const NamedDecl *D : E->decls())
        if (const auto *VT = dyn_cast<VarTemplateDecl>(D->getUnderlyingDecl());
            VT && isShared(VT->getTemplatedDecl()))
          direct();
      // ADL: any function of the name.
      if (L->requiresADL() || E->getNumDecls() == 0)
        unresolved(E->getName(), /*Unqualified=*/true, arityAsCallee(E));
      return true;
    }
    // A member: of a type known only when instantiated, or overloaded.
    const auto *M = cast<UnresolvedMemberExpr>(E);
    unresolved(E->getName(), false, arityAsCallee(E));
    if (M->isArrow() && !M->isImplicitAccess() &&
        M->getBaseType()->isDependentType() &&
        !M->getBaseType()->isPointerType())
      unresolvedOperator(OO_Arrow);
    return true;
  }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
    unresolved(E->getMember(), false, arityAsCallee(E));
    // `p->x` on a dependent `p`: a class's operator-> may run.
    if (E->isArrow() && !E->isImplicitAccess() &&
        !E->getBaseType()->isPointerType())
      unresolvedOperator(OO_Arrow);
    return true;
  }
  bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E) {
    unresolved(E->getDeclName(), false, arityAsCallee(E));
    return true;
  }
  // Operators on operands of dependent type are looked up when instantiated.
  bool VisitBinaryOperator(BinaryOperator *E) {
    if (E->isTypeDependent() && E->isComparisonOp())
      rewrittenCandidates(E->getOpcode());
    return dependentOperator(
        E, BinaryOperator::getOverloadedOperator(E->getOpcode()));
  }
  // A dependent comparison Clang found candidates for at the template.
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *E) {
    if (E->isTypeDependent() && E->isComparisonOp())
      rewrittenCandidates(
          BinaryOperator::getOverloadedOpcode(E->getOperator()));
    return true;
  }
  // C++20's `a != b` as `!(a == b)`, `a < b` as `(a <=> b) < 0`: the call is
  // in the semantic form, which a traversal without implicit code skips.
  bool VisitCXXRewrittenBinaryOperator(CXXRewrittenBinaryOperator *E) {
    unresolvedOperator(BinaryOperator::getOverloadedOperator(E->getOperator()));
    rewrittenCandidates(E->getOperator());
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    unresolved(E->getOperatorDelete()
                   ? E->getOperatorDelete()->getDeclName()
                   : Ctx.DeclarationNames.getCXXOperatorName(OO_Delete));
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *E) {
    return dependentOperator(
        E, UnaryOperator::getOverloadedOperator(E->getOpcode()));
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    return dependentOperator(E, OO_Subscript);
  }
  bool VisitCallExpr(CallExpr *E) {
    Arities A = arityOf(E->getNumArgs());
    for (const Expr *Arg : E->arguments())
      if (isa<PackExpansionExpr>(Arg))
        A = AnyArity;
    // An operator's members take one argument fewer than its call has.
    if (!isa<CXXOperatorCallExpr>(E) && E->getCallee())
      CallArity[E->getCallee()->IgnoreParens()] = A;
    // A call through an object (a functor, a lambda) or a pointer: its call
    // operator has no name here.
    const Expr *Callee = E->getCallee()->IgnoreParenImpCasts();
    if (const auto *R = dyn_cast<DeclRefExpr>(Callee);
        R && !isa<FunctionDecl>(R->getDecl()))
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(OO_Call), false, A);
    else if (!isa<DeclRefExpr, OverloadExpr, MemberExpr>(Callee))
      // Also `x.op(a)` and `T::op(a)`, where `op` may turn out to be an
      // object (a data member) whose call operator runs.
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(OO_Call), false, A);
    return true;
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    if (Relocatable)
      direct();
    else
      target().KeptHere = true;
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    if (S->getAsmString()->getString().contains("tcgen05.alloc") &&
        tensorMemory())
      direct();
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *S) {
    if (!InLambda)
      Out.Returns = true;
    return true;
  }
  // `if (c) continue;` decides which threads make the accesses after it (the
  // bank analysis reads it as their condition), as `return` does.
  bool VisitContinueStmt(ContinueStmt *) {
    if (!InLambda)
      Out.Returns = true;
    return true;
  }
  bool VisitBreakStmt(BreakStmt *) {
    if (!InLambda)
      Out.Returns = true;
    return true;
  }
  bool VisitLabelStmt(LabelStmt *) {
    Out.HasLabel = true;
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) {
    Out.HasLabel = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    Out.HasLabel = true;
    return true;
  }
  bool VisitTypeLoc(TypeLoc TL) {
    if (auto T = TL.getAs<TypedefTypeLoc>())
      refersTo(T.getTypedefNameDecl());
    else if (auto T = TL.getAs<TagTypeLoc>())
      refersTo(T.getDecl());
    if (const Decl *D = typeDeclOf(TL))
      target().Mentions.insert(D);
    return true;
  }

private:
  bool usingDecl() {
    Out.UsingDecl = true;
    return true;
  }
  Names &target() { return InLambda ? Lambdas : Out; }
  bool dependentOperator(const Expr *E, OverloadedOperatorKind K) {
    if (!E->isTypeDependent())
      return true;
    unresolvedOperator(K);
    return true;
  }
  void unresolvedOperator(OverloadedOperatorKind K) {
    if (K != OO_None)
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(K));
  }
  /// What C++20 may call for the comparison \p Op instead of its own
  /// operator: `==` reversed or for `!=`, `<=>` for the relational ones.
  void rewrittenCandidates(BinaryOperatorKind Op) {
    unresolvedOperator(OO_EqualEqual);
    if (BinaryOperator::isRelationalOp(Op) || Op == BO_Cmp)
      unresolvedOperator(OO_Spaceship);
  }
  /// A default construction of a dependent type: what its type as written
  /// names says which classes it may be.
  /// A type that depends on template parameters only through them and the
  /// types it names: the class it turns out to be is either among those
  /// (BodySlicer::sound checks the template arguments) or named here.
  void defaultConstructs(TypeSourceInfo *TSI) {
    if (!TSI) {
      target().DefaultConstructsUnknown = true;
      return;
    }
    llvm::SmallPtrSet<const Decl *, 8> Named;
    TypeMentions Scan(Named);
    Scan.TraverseTypeLoc(TSI->getTypeLoc());
    target().DefaultConstructsUnknown |= Scan.Opaque;
    target().DefaultConstructed.insert(Named.begin(), Named.end());
  }
  void direct() { target().Direct = true; }
  /// Whether the architecture parsed for can have Tensor Memory: below
  /// sm_100 none can, and the report leaves allocations out (the capacity
  /// database gives those architectures 0 columns), so an allocation there
  /// reaches nothing a figure depends on.
  bool tensorMemory() const {
    unsigned Number = 0;
    llvm::StringRef CPU = Ctx.getTargetInfo().getTargetOpts().CPU;
    return !CPU.consume_front("sm_") || CPU.consumeInteger(10, Number) ||
           Number >= 100;
  }
  void calls(const FunctionDecl *FD) {
    if (isTmemAllocator(FD) && tensorMemory())
      direct();
    else if (FD->getDeclName().isIdentifier() && keptByName(FD->getName()))
      target().KeptHere = true;
    target().Calls.insert(nodeOf(FD));
    // An implicit or defaulted operator (a class's copy assignment, a
    // defaulted comparison) has no body in the inventory: it calls its
    // members' and bases' operators of the same name.
    if (FD->isOverloadedOperator() && (FD->isImplicit() || FD->isDefaulted()))
      unresolved(FD->getDeclName());
  }
  /// A construction runs the constructor, and an implicit one the default
  /// constructors of the members and bases it has no initializer for.
  void constructs(const CXXConstructorDecl *Ctor, unsigned Depth) {
    if (!Ctor || Depth > 8)
      return;
    calls(Ctor);
    if (Ctor->isImplicit() || Ctor->isDefaulted())
      membersOf(Ctor->getParent(), Depth);
  }
  /// \p R made without arguments: its default constructor, or (an aggregate,
  /// or an implicit one) its members' and bases'.
  void defaultConstructsRecord(const CXXRecordDecl *R, unsigned Depth) {
    if (!R || !R->hasDefinition() || Depth > 8)
      return;
    for (const CXXConstructorDecl *D : R->ctors())
      if (D->isDefaultConstructor()) {
        constructs(D, Depth + 1);
        return;
      }
    membersOf(R, Depth);
  }
  void membersOf(const CXXRecordDecl *R, unsigned Depth) {
    if (!R || !R->hasDefinition())
      return;
    auto Inner = [&](QualType T) {
      defaultConstructsRecord(Ctx.getBaseElementType(T)->getAsCXXRecordDecl(),
                              Depth + 1);
    };
    for (const FieldDecl *F : R->fields())
      Inner(F->getType());
    for (const CXXBaseSpecifier &B : R->bases())
      Inner(B.getType());
    initializersOf(R);
  }

public:
  /// The default member initializers of \p R's fields: what its
  /// constructors run where they do not initialize a member themselves (an
  /// implicit or defaulted one, or a user's that leaves the member out),
  /// written in the class, not in the constructor. Each class once.
  void initializersOf(const CXXRecordDecl *R) {
    if (!R || !R->hasDefinition() ||
        !InitializersRead.insert(R->getCanonicalDecl()).second)
      return;
    for (const FieldDecl *F : R->fields())
      if (F->hasInClassInitializer())
        if (Expr *Init = F->getInClassInitializer())
          TraverseStmt(Init);
  }

private:
  /// A name Clang resolves only when instantiating. \p Unqualified: looked up
  /// as written (ADL); else a member's or a qualified name's, which a
  /// `__shared__` variable never is (nvcc and Clang refuse a memory space on
  /// a data member).
  void unresolved(const DeclarationName &N, bool Unqualified = false,
                  Arities A = AnyArity) {
    if (N.isEmpty())
      return;
    const std::string S = nameOf(N);
    if (Unqualified && N.isIdentifier() && SharedNames.count(S))
      direct();
    if (keptByName(S))
      target().KeptHere = true;
    target().Unresolved[S] |= A;
  }
  /// The numbers of arguments \p Callee is called with: the call's, where it
  /// is a call's callee without a pack expanded into the arguments; every
  /// number otherwise.
  Arities arityAsCallee(const Expr *Callee) const {
    auto It = CallArity.find(Callee);
    return It == CallArity.end() ? AnyArity : It->second;
  }
  void refersTo(const Decl *D) {
    if (!D || !Fn)
      return;
    if (const auto *B = dyn_cast<BindingDecl>(D))
      if (ValueDecl *Decomposed = B->getDecomposedDecl())
        D = Decomposed;
    if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
      if (P->getDeclContext() == Fn)
        Out.ParamsNamed |= positionOf(P->getFunctionScopeIndex());
      return;
    }
    if (!D->getParentFunctionOrMethod())
      return;
    Out.Uses.insert(D);
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && !VD->isConstexpr())
      Out.NamesNonConstant = true;
  }

  const ASTContext &Ctx;
  const llvm::StringSet<> &SharedNames;
  const llvm::DenseSet<DeclKey> &SharedAliases;
  const FunctionDecl *Fn;
  Names &Out;
  Names &Lambdas;
  const bool Relocatable;
  unsigned InLambda = 0;
  /// Callees of the calls seen so far (a call is visited before its callee).
  llvm::DenseMap<const Expr *, Arities> CallArity;
  /// The classes whose default member initializers were read (initializersOf).
  llvm::SmallPtrSet<const CXXRecordDecl *, 4> InitializersRead;
};

} // namespace

void typeMentions(TypeLoc TL, llvm::SmallPtrSetImpl<const Decl *> &Out) {
  TypeMentions Scan(Out);
  Scan.TraverseTypeLoc(TL);
}

void scanNames(const ASTContext &Ctx, const llvm::StringSet<> &SharedNames,
               const llvm::DenseSet<DeclKey> &SharedAliases,
               const FunctionDecl *Fn, llvm::PointerUnion<Decl *, Stmt *> Code,
               Names &Out, Names &Lambdas, bool Relocatable) {
  NameScan Scan(Ctx, SharedNames, SharedAliases, Fn, Out, Lambdas, Relocatable);
  if (auto *D = Code.dyn_cast<Decl *>()) {
    Scan.TraverseDecl(D);
    // A constructor runs its class's default member initializers.
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(D))
      Scan.initializersOf(Ctor->getParent());
  } else
    Scan.TraverseStmt(Code.dyn_cast<Stmt *>());
}

} // namespace slicing
} // namespace matchers
} // namespace tilefit
