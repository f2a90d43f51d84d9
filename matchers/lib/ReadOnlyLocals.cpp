//===- ReadOnlyLocals.cpp - Locals a function only reads ------------------===//
#include "ReadOnlyLocals.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

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

} // namespace

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


} // namespace matchers
} // namespace tilefit
