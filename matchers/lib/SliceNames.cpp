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
           const llvm::DenseSet<const VarDecl *> &SharedAliases,
           const FunctionDecl *Fn, Names &Out, Names &Lambdas, bool Relocatable)
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
    if (isShared(D) || SharedAliases.count(dyn_cast<VarDecl>(D)))
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
    // ADL, or members of a type known only when instantiated.
    const auto *L = dyn_cast<UnresolvedLookupExpr>(E);
    if (!L || L->requiresADL() || E->getNumDecls() == 0)
      unresolved(E->getName());
    else if (const auto *M = dyn_cast<UnresolvedMemberExpr>(E);
             M && M->getBaseType()->isDependentType())
      unresolved(E->getName());
    return true;
  }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
    unresolved(E->getMember());
    return true;
  }
  bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E) {
    unresolved(E->getDeclName());
    return true;
  }
  // Operators on operands of dependent type are looked up when instantiated.
  bool VisitBinaryOperator(BinaryOperator *E) {
    return dependentOperator(
        E, BinaryOperator::getOverloadedOperator(E->getOpcode()));
  }
  bool VisitUnaryOperator(UnaryOperator *E) {
    return dependentOperator(
        E, UnaryOperator::getOverloadedOperator(E->getOpcode()));
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    return dependentOperator(E, OO_Subscript);
  }
  bool VisitCallExpr(CallExpr *E) {
    // A call through an object (a functor, a lambda) or a pointer: its call
    // operator has no name here.
    const Expr *Callee = E->getCallee()->IgnoreParenImpCasts();
    if (const auto *R = dyn_cast<DeclRefExpr>(Callee);
        R && !isa<FunctionDecl>(R->getDecl()))
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(OO_Call));
    else if (!isa<DeclRefExpr, OverloadExpr, MemberExpr,
                  CXXDependentScopeMemberExpr, DependentScopeDeclRefExpr>(
                 Callee))
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(OO_Call));
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
    if (S->getAsmString()->getString().contains("tcgen05.alloc"))
      direct();
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *) {
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
    if (E->isTypeDependent() && K != OO_None)
      unresolved(Ctx.DeclarationNames.getCXXOperatorName(K));
    return true;
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
  void calls(const FunctionDecl *FD) {
    if (isTmemAllocator(FD))
      direct();
    else if (FD->getDeclName().isIdentifier() && keptByName(FD->getName()))
      target().KeptHere = true;
    target().Calls.insert(nodeOf(FD));
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
  }
  void unresolved(const DeclarationName &N) {
    if (N.isEmpty())
      return;
    const std::string S = nameOf(N);
    if (N.isIdentifier() && SharedNames.count(S))
      direct();
    if (keptByName(S))
      target().KeptHere = true;
    target().Unresolved.insert(S);
  }
  void refersTo(const Decl *D) {
    if (!D || !Fn)
      return;
    if (const auto *B = dyn_cast<BindingDecl>(D))
      if (ValueDecl *Decomposed = B->getDecomposedDecl())
        D = Decomposed;
    if (const auto *P = dyn_cast<ParmVarDecl>(D)) {
      if (P->getDeclContext() == Fn)
        Out.NamesParameter = true;
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
  const llvm::DenseSet<const VarDecl *> &SharedAliases;
  const FunctionDecl *Fn;
  Names &Out;
  Names &Lambdas;
  const bool Relocatable;
  unsigned InLambda = 0;
};

} // namespace

void typeMentions(TypeLoc TL, llvm::SmallPtrSetImpl<const Decl *> &Out) {
  TypeMentions Scan(Out);
  Scan.TraverseTypeLoc(TL);
}

void scanNames(const ASTContext &Ctx, const llvm::StringSet<> &SharedNames,
               const llvm::DenseSet<const VarDecl *> &SharedAliases,
               const FunctionDecl *Fn, llvm::PointerUnion<Decl *, Stmt *> Code,
               Names &Out, Names &Lambdas, bool Relocatable) {
  NameScan Scan(Ctx, SharedNames, SharedAliases, Fn, Out, Lambdas, Relocatable);
  if (auto *D = Code.dyn_cast<Decl *>())
    Scan.TraverseDecl(D);
  else
    Scan.TraverseStmt(Code.dyn_cast<Stmt *>());
}

} // namespace slicing
} // namespace matchers
} // namespace tilefit
