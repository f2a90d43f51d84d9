//===- EvaluatedCodeVisitor.h -----------------------------------*- C++ -*-===//
//
// Walk only code that is evaluated.
//
// A RecursiveASTVisitor base for walking one function's body as code generation
// sees it: unevaluated operands (sizeof, alignof, decltype, noexcept, typeid of
// a non-polymorphic operand) and the discarded branch of `if constexpr` are
// skipped, and the bodies of lambdas and local classes are left to the derived
// visitor (they are functions of their own). The destructors code generation
// calls without a name written (a local's at the end of its scope, a
// temporary's, a deleted object's, and a destructor's members' and bases') are
// handed to the derived visitor's implicitCall.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_EVALUATEDCODEVISITOR_H
#define TILEFIT_MATCHERS_EVALUATEDCODEVISITOR_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace tilefit {
namespace matchers {

template <typename Derived>
class EvaluatedCodeVisitor : public clang::RecursiveASTVisitor<Derived> {
  using Base = clang::RecursiveASTVisitor<Derived>;

public:
  explicit EvaluatedCodeVisitor(clang::ASTContext &Ctx) : Ctx(Ctx) {}

  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return false; }

  /// Walks \p FD's member initializers and body; for a destructor, then the
  /// destructors of its members and bases, which it calls after its body.
  void walkFunction(const clang::FunctionDecl *FD) {
    if (const auto *Ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(FD))
      for (const clang::CXXCtorInitializer *Init : Ctor->inits())
        derived().TraverseStmt(Init->getInit());
    derived().TraverseStmt(FD->getBody());
    if (const auto *Dtor = llvm::dyn_cast<clang::CXXDestructorDecl>(FD)) {
      const clang::CXXRecordDecl *RD = Dtor->getParent();
      llvm::SmallVector<const clang::FieldDecl *, 8> Fields(RD->fields());
      for (auto It = Fields.rbegin(); It != Fields.rend(); ++It)
        destroys((*It)->getType());
      for (auto It = RD->bases_end(); It != RD->bases_begin();) {
        --It;
        destroys(It->getType());
      }
      for (const clang::CXXBaseSpecifier &B : RD->vbases())
        destroys(B.getType());
    }
  }

  /// The derived visitor's: a function code generation calls where no name
  /// is written (a destructor).
  void implicitCall(const clang::FunctionDecl *) {}

  /// A local variable is destroyed at the end of its scope.
  bool TraverseVarDecl(clang::VarDecl *VD) {
    if (!Base::TraverseVarDecl(VD))
      return false;
    if (VD->hasLocalStorage() && !VD->getType()->isReferenceType())
      destroys(VD->getType());
    return true;
  }
  bool TraverseCXXBindTemporaryExpr(clang::CXXBindTemporaryExpr *E) {
    if (!Base::TraverseCXXBindTemporaryExpr(E))
      return false;
    if (const clang::CXXTemporary *T = E->getTemporary())
      if (const clang::CXXDestructorDecl *Dtor = T->getDestructor())
        derived().implicitCall(Dtor);
    return true;
  }
  bool TraverseCXXDeleteExpr(clang::CXXDeleteExpr *E) {
    if (!Base::TraverseCXXDeleteExpr(E))
      return false;
    const clang::QualType T = E->getDestroyedType();
    if (!T.isNull() && !T->isDependentType())
      destroys(T);
    return true;
  }

  // Unevaluated operands generate no code.
  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr *) {
    return true;
  }
  bool TraverseCXXNoexceptExpr(clang::CXXNoexceptExpr *) { return true; }
  bool TraverseDecltypeTypeLoc(clang::DecltypeTypeLoc) { return true; }
  bool TraverseTypeOfExprTypeLoc(clang::TypeOfExprTypeLoc) { return true; }
  bool TraverseCXXTypeidExpr(clang::CXXTypeidExpr *E) {
    return E->isPotentiallyEvaluated() ? Base::TraverseCXXTypeidExpr(E) : true;
  }

  // `if constexpr` in non-template code keeps its discarded branch in the AST
  // (an instantiation drops it already): walk only the branch that is taken.
  // With PruneConstantBranches, plain `if`s whose condition folds to a constant
  // are treated the same way (the optimizer removes the dead branch).
  bool TraverseIfStmt(clang::IfStmt *S) {
    bool Value = false;
    if (!(S->isConstexpr() || derived().pruneConstantBranches()) ||
        !S->getCond() || S->getCond()->isValueDependent() ||
        !S->getCond()->EvaluateAsBooleanCondition(Value, Ctx))
      return Base::TraverseIfStmt(S);
    if (S->getInit())
      derived().TraverseStmt(S->getInit());
    if (S->getConditionVariableDeclStmt())
      derived().TraverseStmt(S->getConditionVariableDeclStmt());
    if (clang::Stmt *Taken = Value ? S->getThen() : S->getElse())
      derived().TraverseStmt(Taken);
    return true;
  }
  bool pruneConstantBranches() const { return false; }

  // With PruneConstantBranches, what follows a statement that always leaves the
  // function (`if (use_softcap && DV != 128) { ...; return; }` with a constant
  // condition: ggml's way to skip a kernel variant) is dead, as for the
  // optimizer: not walked.
  bool TraverseCompoundStmt(clang::CompoundStmt *S) {
    if (!derived().pruneConstantBranches())
      return Base::TraverseCompoundStmt(S);
    if (!derived().WalkUpFromCompoundStmt(S))
      return false;
    for (clang::Stmt *Child : S->body()) {
      if (!derived().TraverseStmt(Child))
        return false;
      if (alwaysLeaves(Child, 0))
        break;
    }
    return true;
  }

protected:
  /// Whether \p S, once reached, never lets control reach the statement after
  /// it: a `return`, an `if` whose taken branch (condition folded) or both
  /// branches always leave, a block with such a statement. A label in a block
  /// (a `goto` could land past the exit) makes it no. Not a call of `__trap()`:
  /// nvcc keeps the code after it (ptxas counts its shared memory).
  bool alwaysLeaves(const clang::Stmt *S, unsigned Depth) const {
    if (!S || Depth > 32)
      return false;
    if (llvm::isa<clang::ReturnStmt>(S))
      return true;
    if (const auto *Block = llvm::dyn_cast<clang::CompoundStmt>(S)) {
      for (const clang::Stmt *Child : Block->body())
        if (llvm::isa<clang::LabelStmt>(Child))
          return false;
      for (const clang::Stmt *Child : Block->body())
        if (alwaysLeaves(Child, Depth + 1))
          return true;
      return false;
    }
    if (const auto *If = llvm::dyn_cast<clang::IfStmt>(S)) {
      bool Value = false;
      if (If->getCond() && !If->getCond()->isValueDependent() &&
          If->getCond()->EvaluateAsBooleanCondition(Value, Ctx))
        return alwaysLeaves(Value ? If->getThen() : If->getElse(), Depth + 1);
      return If->getElse() && alwaysLeaves(If->getThen(), Depth + 1) &&
             alwaysLeaves(If->getElse(), Depth + 1);
    }
    return false;
  }

  /// An object of type \p T (or an array of them) is destroyed: its class's
  /// destructor runs, unless trivial.
  void destroys(clang::QualType T) {
    const auto *RD = Ctx.getBaseElementType(T)->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || RD->hasTrivialDestructor())
      return;
    if (const clang::CXXDestructorDecl *Dtor = RD->getDestructor())
      derived().implicitCall(Dtor);
  }

  Derived &derived() { return *static_cast<Derived *>(this); }
  clang::ASTContext &Ctx;
};

/// Whether \p FD is a template instantiation: a function template
/// specialization (implicit or explicitly instantiated) or a member function of
/// a class template specialization. Explicit specializations (`template<> void
/// f<3>()`) are ordinary functions.
inline bool isTemplateInstance(const clang::FunctionDecl *FD) {
  return FD->isTemplateInstantiation();
}

/// Whether \p FD is nested in another function: a lambda's call operator or a
/// member of a local class.
inline bool isNestedFunction(const clang::FunctionDecl *FD) {
  for (const clang::DeclContext *DC = FD->getDeclContext(); DC;
       DC = DC->getParent())
    if (llvm::isa<clang::FunctionDecl>(DC))
      return true;
  if (const auto *MD = llvm::dyn_cast<clang::CXXMethodDecl>(FD))
    return MD->getParent()->isLambda();
  return false;
}

} // namespace matchers
} // namespace tilefit

#endif
