//===- BodySlicer.cpp - Instantiate only what can reach shared memory -----===//
//
// Three steps (BodySlicer.h says what is kept and why):
// 1. An inventory of the unit: every `__shared__` variable's name, every
//    function with a body (templates' patterns), what each body names.
// 2. The closure over names: a name reaches shared memory when a function of
//    that name declares or names a `__shared__` variable (or launches, or
//    allocates Tensor Memory), or names a name that reaches. Names, not
//    declarations, so that every overload and every ADL candidate counts.
// 3. Each device function template's body, statement by statement: what is
//    kept, the declarations it needs, the rest replaced by empty statements.
//
//===----------------------------------------------------------------------===//
#include "tilefit/matchers/BodySlicer.h"

#include "tilefit/matchers/ScopeFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <memory>

namespace tilefit {
namespace matchers {

using namespace clang;

/// What one stretch of code names and does, seen through everything Clang
/// keeps of it: expressions, types written (decltype, sizeof), lambda bodies.
struct Names {
  /// Declares or names a `__shared__` variable, launches a kernel, allocates
  /// Tensor Memory.
  bool Direct = false;
  /// The functions it calls or names, resolved (their closure nodes).
  llvm::SmallPtrSet<const FunctionDecl *, 8> Calls;
  /// The names it calls unresolved: dependent names, ADL, members of
  /// dependent types, operators on dependent operands. Any function of the
  /// name may be the one.
  llvm::StringSet<> Unresolved;
  /// Default-constructs an object whose class it cannot tell from the
  /// spelling of its type (decltype, `{}` passed to an unresolved call): any
  /// class's default constructor may run.
  bool DefaultConstructsUnknown = false;
  /// The type declarations the types it default-constructs name.
  llvm::SmallPtrSet<const Decl *, 4> DefaultConstructed;
  /// The local declarations it refers to (variables, bindings' decompositions,
  /// types).
  llvm::SmallPtrSet<const Decl *, 8> Uses;
  /// The declarations it makes.
  llvm::SmallPtrSet<const Decl *, 4> Declares;
  /// The type declarations its written types name (normalizedType): a class
  /// template whose default constructor reaches shared memory may be among
  /// them, or one that leads to it.
  llvm::SmallPtrSet<const Decl *, 8> Mentions;
  bool NamesParameter = false;
  /// Kept where it is written, without reaching shared memory itself: a
  /// launch (device-side launches need -rdc), an allocator call by name.
  bool KeptHere = false;
  bool Returns = false;
  bool HasLabel = false;
  bool UsingDecl = false;        ///< using, using namespace, namespace alias
  bool StaticAssert = false;     ///< a static_assert
  bool NamesNonConstant = false; ///< a local that is not constexpr
  bool ArrayLocal = false;       ///< declares a per-thread array
  /// Declares locals of deduced or dependent type (they may hold arrays).
  unsigned MaybeArrayLocals = 0;
};

namespace {

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

/// Device code can call it: a device or host-device function, not a kernel.
bool deviceCallable(const FunctionDecl *FD) {
  return FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAGlobalAttr>();
}

/// The declaration whose body instantiations of \p FD are made from (itself
/// for a plain function), canonical: the closure's node for \p FD.
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

/// The declaration that stands for a type declaration in the closure over
/// types: a class template's pattern for the template, its specializations
/// and partial specializations; an alias template's alias; canonical.
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

class NameScan : public RecursiveASTVisitor<NameScan> {
public:
  /// What lambda bodies call goes to \p Lambdas (a lambda is called where the
  /// closure cannot see: its call operator has no name); what they refer to,
  /// to \p Out.
  NameScan(const ASTContext &Ctx, const llvm::StringSet<> &SharedNames,
           const llvm::DenseSet<const VarDecl *> &SharedAliases,
           const FunctionDecl *Fn, Names &Out, Names &Lambdas,
           bool Relocatable)
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

/// Every function with a body and every `__shared__` variable among the
/// traversal's declarations; patterns, not instantiations.
class Inventory : public RecursiveASTVisitor<Inventory> {
public:
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasAttr<CUDASharedAttr>())
      SharedNames.insert(VD->getName());
    else if (!VD->isLocalVarDecl() && !isa<ParmVarDecl>(VD) && VD->getInit())
      Initialized.push_back(VD);
    return true;
  }
  bool VisitFieldDecl(FieldDecl *FD) {
    if (FD->hasInClassInitializer())
      Fields.push_back(FD);
    return true;
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() &&
        (deviceCallable(FD) || FD->hasAttr<CUDAGlobalAttr>()))
      Functions.push_back(FD);
    return true;
  }
  bool VisitCXXRecordDecl(CXXRecordDecl *R) {
    if (R->isThisDeclarationADefinition() && !R->isLambda())
      Types.push_back(R);
    return true;
  }
  bool VisitTypedefNameDecl(TypedefNameDecl *T) {
    Types.push_back(T);
    return true;
  }

  llvm::StringSet<> SharedNames;
  std::vector<Decl *> Types;
  std::vector<FunctionDecl *> Functions;
  std::vector<VarDecl *> Initialized;
  std::vector<FieldDecl *> Fields;
};

/// Whether functions the slicer's inventory does not hold (the CUDA runtime
/// headers', left out of it whether or not they are precompiled, so that a
/// parse slices alike either way) hold per-thread arrays: their bodies read
/// when a statement calls one, once each.
class OutsideArrays {
public:
  enum Kind { None = 0, Maybe = 1, Exact = 2 };
  OutsideArrays(const ASTContext &Ctx,
                const llvm::DenseSet<const FunctionDecl *> &Inside)
      : Ctx(Ctx), Inside(Inside) {}

  /// The most any of \p N's resolved callees outside the inventory holds.
  Kind of(const Names &N) {
    Kind K = None;
    for (const FunctionDecl *F : N.Calls)
      if (!Inside.count(F))
        K = std::max(K, kind(F, 0));
    return K;
  }

  Kind kind(const FunctionDecl *FD, unsigned Depth) {
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody() || Depth > 8)
      return None;
    auto [It, New] = Known.try_emplace(Def->getCanonicalDecl(), None);
    if (!New)
      return It->second;
    Scan S(*this, Depth);
    S.TraverseStmt(Def->getBody());
    Known[Def->getCanonicalDecl()] = S.Result;
    return S.Result;
  }

private:
  class Scan : public RecursiveASTVisitor<Scan> {
  public:
    Scan(OutsideArrays &O, unsigned Depth) : O(O), Depth(Depth) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitVarDecl(VarDecl *VD) {
      if (isa<ParmVarDecl>(VD) || !VD->hasLocalStorage())
        return true;
      const QualType T = VD->getType();
      if (T->isArrayType() || (!T->isDependentType() && !T->isUndeducedType() &&
                               isPerThreadArray(O.Ctx, VD)))
        Result = Exact;
      else if (T->isDependentType() || T->isUndeducedType())
        Result = std::max(Result, Maybe);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
        Result = std::max(Result, O.kind(F, Depth + 1));
      return true;
    }
    bool VisitMemberExpr(MemberExpr *E) {
      if (const auto *F = dyn_cast<FunctionDecl>(E->getMemberDecl()))
        Result = std::max(Result, O.kind(F, Depth + 1));
      return true;
    }
    bool VisitOverloadExpr(OverloadExpr *) {
      Result = std::max(Result, Maybe);
      return true;
    }
    Kind Result = None;

  private:
    OutsideArrays &O;
    unsigned Depth;
  };

  const ASTContext &Ctx;
  const llvm::DenseSet<const FunctionDecl *> &Inside;
  llvm::DenseMap<const FunctionDecl *, Kind> Known;
};

/// Whether slicing \p FD can save anything and cannot change what it means:
/// a device function template, not evaluated at compile time, whose return
/// type is written.
bool sliceable(const FunctionDecl *FD) {
  if (!FD->isTemplated() || !FD->hasBody() || FD->isConstexpr() ||
      FD->isDefaulted() || FD->isDeleted())
    return false;
  const bool Kernel = FD->hasAttr<CUDAGlobalAttr>();
  const bool DeviceOnly =
      FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>();
  if (!Kernel && !DeviceOnly)
    return false;
  if (FD->getReturnType()->getContainedAutoType() ||
      FD->getReturnType()->isUndeducedType())
    return false;
  return isa_and_nonnull<CompoundStmt>(FD->getBody());
}

/// One statement of a body being sliced: a leaf, or a compound or control
/// statement whose own parts (conditions, loop headers) go with it and whose
/// sub-statements are units of their own.
struct Unit {
  Stmt **Slot = nullptr; ///< Where it hangs; null for the body itself.
  Unit *Parent = nullptr;
  std::vector<Unit *> Children;
  Names Own;
  bool Kept = false;
};

class FunctionSlicer {
public:
  FunctionSlicer(ASTContext &Ctx, FunctionDecl *Fn,
                 const llvm::StringSet<> &SharedNames,
                 const llvm::DenseSet<const VarDecl *> &SharedAliases,
                 const Reaching &Reach, OutsideArrays &Outside,
                 bool Relocatable)
      : Ctx(Ctx), Fn(Fn), SharedNames(SharedNames),
        SharedAliases(SharedAliases), Reach(Reach), Outside(Outside),
        Relocatable(Relocatable),
        Kernel(Fn->hasAttr<CUDAGlobalAttr>()) {}

  /// Slices the body; false where nothing was dropped (or nothing could be).
  bool run(unsigned &Dropped, unsigned &MaybeArrays,
           std::vector<std::pair<Stmt **, Stmt *>> &Replaced) {
    Stmt *Body = Fn->getBody();
    Unit *Root = build(nullptr, Body, nullptr);
    for (const auto &U : Units)
      if (U->Own.HasLabel)
        return false;
    // A fixed point: keeping a statement needs the declarations it uses.
    llvm::SmallPtrSet<const Decl *, 32> Needed, Tainted;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (Unit *U : PostOrder) {
        if (U->Kept || !keeps(*U, Needed, Tainted))
          continue;
        U->Kept = true;
        Needed.insert(U->Own.Uses.begin(), U->Own.Uses.end());
        // An object that may be of a class whose default constructor reaches
        // goes wherever it is used.
        if (mayHoldReachingClass(U->Own))
          for (const Decl *D : U->Own.Declares)
            Tainted.insert(D);
        Changed = true;
      }
    }
    Root->Kept = true;
    for (const auto &U : Units)
      if (!U->Kept && U->Parent && U->Parent->Kept) {
        ++Dropped;
        MaybeArrays += maybeArraysIn(*U);
        Replaced.push_back({U->Slot, *U->Slot});
        *U->Slot = new (Ctx) NullStmt((*U->Slot)->getBeginLoc());
      }
    return Dropped > 0;
  }

private:
  Unit *build(Stmt **Slot, Stmt *S, Unit *Parent) {
    Units.push_back(std::make_unique<Unit>());
    Unit *U = Units.back().get();
    U->Slot = Slot;
    U->Parent = Parent;
    if (Parent)
      Parent->Children.push_back(U);
    Stmt *Sub = S;
    while (auto *A = dyn_cast_or_null<AttributedStmt>(Sub)) // #pragma unroll
      Sub = A->getSubStmt();
    std::vector<Stmt **> Bodies;
    if (!Sub) {
      // nothing
    } else if (auto *C = dyn_cast<CompoundStmt>(Sub)) {
      for (Stmt *&Child : C->body())
        Bodies.push_back(&Child);
    } else if (isa<IfStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Sub)) {
      llvm::SmallPtrSet<const Stmt *, 2> BodyStmts;
      if (auto *I = dyn_cast<IfStmt>(Sub)) {
        BodyStmts.insert(I->getThen());
        BodyStmts.insert(I->getElse());
      } else if (auto *F = dyn_cast<ForStmt>(Sub)) {
        BodyStmts.insert(F->getBody());
      } else if (auto *W = dyn_cast<WhileStmt>(Sub)) {
        BodyStmts.insert(W->getBody());
      } else if (auto *D = dyn_cast<DoStmt>(Sub)) {
        BodyStmts.insert(D->getBody());
      } else {
        BodyStmts.insert(cast<CXXForRangeStmt>(Sub)->getBody());
      }
      // The condition's variable, the loop's header: the statement's own.
      for (Stmt *&Child : Sub->children()) {
        if (!Child)
          continue;
        if (BodyStmts.count(Child))
          Bodies.push_back(&Child);
        else
          scan(Child, U->Own);
      }
    } else {
      scan(Sub, U->Own);
    }
    for (Stmt **B : Bodies)
      build(B, *B, U);
    PostOrder.push_back(U); // children before their parents
    return U;
  }

  /// What a lambda in it calls counts for the statement.
  void scan(Stmt *S, Names &Out) {
    NameScan Scan(Ctx, SharedNames, SharedAliases, Fn, Out, Out, Relocatable);
    Scan.TraverseStmt(S);
  }

  bool mayHoldReachingClass(const Names &N) const {
    if (N.DefaultConstructsUnknown && Reach.DefaultConstructor)
      return true;
    for (const Decl *D : N.DefaultConstructed)
      if (Reach.Forming.count(D))
        return true;
    for (const Decl *D : N.Mentions)
      if (Reach.Forming.count(D))
        return true;
    return false;
  }

  bool keeps(const Unit &U, const llvm::SmallPtrSetImpl<const Decl *> &Needed,
             const llvm::SmallPtrSetImpl<const Decl *> &Tainted) {
    const Names &N = U.Own;
    for (const Decl *D : N.Uses)
      if (Tainted.count(D))
        return true;
    if (N.Direct || N.KeptHere || N.Returns || N.UsingDecl || N.ArrayLocal ||
        Reach.reaches(N) || Reach.Arrays.calls(N) ||
        Outside.of(N) == OutsideArrays::Exact)
      return true;
    if (N.StaticAssert && !N.NamesNonConstant)
      return true;
    if (N.NamesParameter && !Kernel)
      return true;
    for (const Decl *D : N.Declares)
      if (Needed.count(D))
        return true;
    for (const Unit *C : U.Children)
      if (C->Kept)
        return true;
    return false;
  }

  unsigned maybeArraysIn(const Unit &U) const {
    unsigned N = U.Own.MaybeArrayLocals +
                 (Reach.MaybeArrays.calls(U.Own) ||
                  Outside.of(U.Own) != OutsideArrays::None);
    for (const Unit *C : U.Children)
      N += maybeArraysIn(*C);
    return N;
  }

  ASTContext &Ctx;
  FunctionDecl *Fn;
  const llvm::StringSet<> &SharedNames;
  const llvm::DenseSet<const VarDecl *> &SharedAliases;
  const Reaching &Reach;
  OutsideArrays &Outside;
  const bool Relocatable;
  const bool Kernel;
  std::vector<std::unique_ptr<Unit>> Units;
  std::vector<Unit *> PostOrder;
};

} // namespace

bool Closure::calls(const Names &N) const {
  for (const FunctionDecl *F : N.Calls)
    if (Functions.count(F))
      return true;
  for (const auto &U : N.Unresolved)
    if (ByName.count(U.getKey()))
      return true;
  return false;
}

bool Reaching::calls(const Names &N) const {
  if (Closure::calls(N))
    return true;
  for (const Decl *D : N.Mentions)
    if (Forming.count(D))
      return true;
  return false;
}

bool Reaching::reaches(const Names &N) const {
  if (N.DefaultConstructsUnknown && DefaultConstructor)
    return true;
  for (const Decl *D : N.DefaultConstructed)
    if (Forming.count(D))
      return true;
  return calls(N);
}


void BodySlicer::slice(ASTContext &Ctx, llvm::ArrayRef<Decl *> Scope,
                       bool HadErrors, bool Relocatable) {
  // A slicing of the declarations parsed so far, for instantiations made
  // before the end of the unit, is undone: the whole unit's closure decides
  // for those made at its end.
  for (auto It = Replaced.rbegin(); It != Replaced.rend(); ++It)
    *It->first = It->second;
  Replaced.clear();
  Reach = Reaching();
  Summary = BodySlicing();
  Summary.Enabled = true;
  if (HadErrors) {
    Summary.Fallback = "Clang reported an error";
    return;
  }
  Inventory Inv;
  for (Decl *D : Scope)
    Inv.TraverseDecl(D);

  // Variables outside functions whose initializers name a `__shared__`
  // variable stand for it.
  llvm::DenseSet<const VarDecl *> SharedAliases;
  const llvm::DenseSet<const VarDecl *> NoAliases;
  for (VarDecl *VD : Inv.Initialized) {
    Names N;
    NameScan Scan(Ctx, Inv.SharedNames, NoAliases, nullptr, N, N, Relocatable);
    Scan.TraverseStmt(VD->getInit());
    if (N.Direct)
      SharedAliases.insert(VD);
  }
  for (FieldDecl *FD : Inv.Fields) {
    Names N;
    NameScan Scan(Ctx, Inv.SharedNames, SharedAliases, nullptr, N, N,
                  Relocatable);
    Scan.TraverseStmt(FD->getInClassInitializer());
    if (N.Direct) {
      Summary.Fallback = "the initializer of the field '" +
                         FD->getNameAsString() + "' names a __shared__ variable";
      return;
    }
  }

  // The type declarations each type declaration leads to: what its written
  // types name, and for a class, its members' (a class whose member type is a
  // block primitive leads to it).
  llvm::DenseMap<const Decl *, std::vector<const Decl *>> LedToBy;
  for (Decl *D : Inv.Types) {
    const Decl *Self = normalizedType(D);
    if (!Self)
      continue;
    llvm::SmallPtrSet<const Decl *, 8> Named;
    TypeMentions Scan(Named);
    if (const auto *T = dyn_cast<TypedefNameDecl>(D)) {
      if (TypeSourceInfo *TSI = T->getTypeSourceInfo())
        Scan.TraverseTypeLoc(TSI->getTypeLoc());
    } else if (const auto *R = dyn_cast<CXXRecordDecl>(D)) {
      for (const CXXBaseSpecifier &B : R->bases())
        if (TypeSourceInfo *TSI = B.getTypeSourceInfo())
          Scan.TraverseTypeLoc(TSI->getTypeLoc());
      for (const Decl *M : R->decls()) {
        if (const auto *F = dyn_cast<FieldDecl>(M)) {
          if (TypeSourceInfo *TSI = F->getTypeSourceInfo())
            Scan.TraverseTypeLoc(TSI->getTypeLoc());
        } else if (const auto *V = dyn_cast<VarDecl>(M)) {
          if (TypeSourceInfo *TSI = V->getTypeSourceInfo())
            Scan.TraverseTypeLoc(TSI->getTypeLoc());
        } else if (const Decl *Member = normalizedType(M)) {
          Named.insert(Member);
        } else if (const auto *CT = dyn_cast<ClassTemplateDecl>(M)) {
          Named.insert(normalizedType(CT));
        }
      }
    }
    for (const Decl *N : Named)
      if (N && N != Self)
        LedToBy[N].push_back(Self);
  }

  // What each function names, and the closure: a function reaches when it
  // names a `__shared__` variable, calls one that reaches (resolved, or any of
  // the name where the call is not resolved), or names a type that leads to a
  // class whose default constructor reaches (CUB's block primitives, whose
  // PrivateStorage is a `__shared__` static).
  struct Node {
    FunctionDecl *Fn;
    Names N, Lambdas;
  };
  std::vector<Node> All(Inv.Functions.size());
  llvm::DenseMap<const FunctionDecl *, std::vector<size_t>> CalledBy;
  llvm::StringMap<std::vector<size_t>> CalledByName;
  llvm::DenseMap<const Decl *, std::vector<size_t>> MentionedBy;
  for (size_t I = 0; I < Inv.Functions.size(); ++I) {
    Node &F = All[I];
    F.Fn = Inv.Functions[I];
    NameScan Scan(Ctx, Inv.SharedNames, SharedAliases, F.Fn, F.N, F.Lambdas,
                  Relocatable);
    Scan.TraverseDecl(F.Fn);
    for (const Names *N : {&F.N, &F.Lambdas}) {
      for (const FunctionDecl *C : N->Calls)
        CalledBy[C].push_back(I);
      for (const auto &C : N->Unresolved)
        CalledByName[C.getKey()].push_back(I);
      for (const Decl *D : N->DefaultConstructed)
        MentionedBy[D].push_back(I);
    }
  }
  std::vector<size_t> Work;
  std::vector<const Decl *> TypeWork;
  auto Mark = [&](size_t I) {
    const FunctionDecl *FD = All[I].Fn;
    if (deviceCallable(FD) && Reach.Functions.insert(nodeOf(FD)).second)
      Work.push_back(I);
  };
  auto Leads = [&](const Decl *D) {
    if (D && Reach.Forming.insert(D).second)
      TypeWork.push_back(D);
  };
  for (size_t I = 0; I < All.size(); ++I)
    if (All[I].N.Direct || All[I].Lambdas.Direct)
      Mark(I);
  while (!Work.empty() || !TypeWork.empty()) {
    if (!TypeWork.empty()) {
      const Decl *D = TypeWork.back();
      TypeWork.pop_back();
      if (auto It = LedToBy.find(D); It != LedToBy.end())
        for (const Decl *By : It->second)
          Leads(By);
      if (auto It = MentionedBy.find(D); It != MentionedBy.end())
        for (size_t C : It->second)
          Mark(C);
      continue;
    }
    const size_t I = Work.back();
    Work.pop_back();
    const FunctionDecl *FD = All[I].Fn;
    if (auto It = CalledBy.find(nodeOf(FD)); It != CalledBy.end())
      for (size_t C : It->second)
        Mark(C);
    const std::string Name = nameOf(FD->getDeclName());
    if (Reach.ByName.insert(Name).second)
      if (auto It = CalledByName.find(Name); It != CalledByName.end())
        for (size_t C : It->second)
          Mark(C);
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD);
        Ctor && Ctor->isDefaultConstructor()) {
      Reach.DefaultConstructor = true;
      Leads(normalizedType(Ctor->getParent()));
    }
  }

  // What holds per-thread arrays, closed the same way.
  auto Close = [&](Closure &C, bool UseNames, auto Seed) {
    std::vector<size_t> W;
    auto Add = [&](size_t I) {
      if (deviceCallable(All[I].Fn) &&
          C.Functions.insert(nodeOf(All[I].Fn)).second)
        W.push_back(I);
    };
    for (size_t I = 0; I < All.size(); ++I)
      if (Seed(All[I].N))
        Add(I);
    while (!W.empty()) {
      const FunctionDecl *FD = All[W.back()].Fn;
      W.pop_back();
      if (auto It = CalledBy.find(nodeOf(FD)); It != CalledBy.end())
        for (size_t C2 : It->second)
          Add(C2);
      const std::string Name = nameOf(FD->getDeclName());
      if (UseNames && C.ByName.insert(Name).second)
        if (auto It = CalledByName.find(Name); It != CalledByName.end())
          for (size_t C2 : It->second)
            Add(C2);
    }
  };
  // Calls kept for the register view are resolved ones, which cost little to
  // keep; by name, what could hold arrays is CuTe's every function.
  llvm::DenseSet<const FunctionDecl *> Inside;
  for (const Node &F : All)
    Inside.insert(nodeOf(F.Fn));
  OutsideArrays Outside(Ctx, Inside);
  Close(Reach.Arrays, false, [&](const Names &N) {
    return N.ArrayLocal || Outside.of(N) == OutsideArrays::Exact;
  });
  Close(Reach.MaybeArrays, true, [&](const Names &N) {
    return N.ArrayLocal || N.MaybeArrayLocals > 0 ||
           Outside.of(N) != OutsideArrays::None;
  });

  // Where Clang calls a function that reaches without its name written, the
  // statements that make the call cannot be told: nothing is sliced.
  for (const Node &F : All) {
    if (!Reach.Functions.count(nodeOf(F.Fn)))
      continue;
    // A default constructor runs where an object is made without arguments:
    // those statements are kept (Reaching::reaches), and instantiations with
    // such a class among their arguments are checked afterwards
    // (BodySlicer::sound).
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(F.Fn);
    if ((Ctor && !Ctor->isDefaultConstructor()) ||
        isa<CXXDestructorDecl, CXXConversionDecl>(F.Fn) ||
        F.Fn->isOverloadedOperator()) {
      Summary.Fallback = "'" + F.Fn->getQualifiedNameAsString() +
                         "' can reach shared memory and is called where its "
                         "name is not written";
      return;
    }
  }
  // A lambda that reaches is called where no name shows it: the function
  // that holds it is instantiated whole (it reaches already, through the
  // lambda's calls), and instantiations that receive a closure type are
  // checked afterwards (BodySlicer::sound).
  llvm::SmallPtrSet<const FunctionDecl *, 8> Whole;
  for (const Node &F : All)
    if (F.Lambdas.Direct || Reach.reaches(F.Lambdas)) {
      Whole.insert(F.Fn);
      Reach.Lambdas = true;
    }

  for (const Node &F : All) {
    if (!sliceable(F.Fn) || Whole.count(F.Fn))
      continue;
    unsigned Dropped = 0, MaybeArrays = 0;
    FunctionSlicer S(Ctx, F.Fn, Inv.SharedNames, SharedAliases, Reach, Outside,
                     Relocatable);
    if (!S.run(Dropped, MaybeArrays, Replaced))
      continue;
    ++Summary.Functions;
    Summary.Statements += Dropped;
    // Instantiations made from an earlier slicing keep its count.
    unsigned &Count = Sliced[F.Fn->getCanonicalDecl()];
    Count = std::max(Count, MaybeArrays);
  }
}

/// Whether \p T, or a type it is made of, is a class that leads to a default
/// constructor reaching shared memory.
static bool leadsToReachingType(QualType T, const Reaching &Reach,
                                unsigned Depth) {
  if (T.isNull() || Depth > 16)
    return false;
  T = T.getCanonicalType();
  if (const auto *P = T->getAs<PointerType>())
    return leadsToReachingType(P->getPointeeType(), Reach, Depth + 1);
  if (const auto *R = T->getAs<ReferenceType>())
    return leadsToReachingType(R->getPointeeType(), Reach, Depth + 1);
  if (const auto *A = T->getAsArrayTypeUnsafe())
    return leadsToReachingType(A->getElementType(), Reach, Depth + 1);
  const CXXRecordDecl *R = T->getAsCXXRecordDecl();
  if (!R)
    return false;
  if (R->isLambda())
    return Reach.Lambdas;
  if (Reach.Forming.count(normalizedType(R)))
    return true;
  if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(R))
    for (const TemplateArgument &A : S->getTemplateArgs().asArray())
      if (A.getKind() == TemplateArgument::Type &&
          leadsToReachingType(A.getAsType(), Reach, Depth + 1))
        return true;
  return false;
}

bool BodySlicer::sound(const FunctionDecl *FD) const {
  if ((Reach.Forming.empty() && !Reach.Lambdas) || uninstantiatedCount(FD) < 0)
    return true;
  if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs())
    for (const TemplateArgument &A : Args->asArray())
      if (A.getKind() == TemplateArgument::Type &&
          leadsToReachingType(A.getAsType(), Reach, 0))
        return false;
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *S = dyn_cast<ClassTemplateSpecializationDecl>(DC))
      for (const TemplateArgument &A : S->getTemplateArgs().asArray())
        if (A.getKind() == TemplateArgument::Type &&
            leadsToReachingType(A.getAsType(), Reach, 0))
          return false;
  return true;
}

int BodySlicer::uninstantiatedCount(const FunctionDecl *FD) const {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    return -1;
  auto It = Sliced.find(Pattern->getCanonicalDecl());
  return It == Sliced.end() ? -1 : static_cast<int>(It->second);
}

unsigned BodySlicer::uninstantiatedStatements(const FunctionDecl *FD) const {
  return std::max(uninstantiatedCount(FD), 0);
}

} // namespace matchers
} // namespace tilefit
