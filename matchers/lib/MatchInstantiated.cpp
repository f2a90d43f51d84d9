//===- MatchInstantiated.cpp - Matchers run outside template patterns -----===//
#include "tilefit/matchers/MatchInstantiated.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

namespace tilefit {
namespace matchers {

using namespace clang;

namespace {

/// MatchFinder's own walk (a RecursiveASTVisitor over template
/// instantiations and implicit code that matches each declaration and
/// statement before its children, statements as the data-recursion queue
/// takes them) with the templated declarations left out.
class InstantiatedWalk : public RecursiveASTVisitor<InstantiatedWalk> {
public:
  InstantiatedWalk(ast_matchers::MatchFinder &Finder, ASTContext &Ctx)
      : Finder(Finder), Ctx(Ctx) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // A template declaration is templated itself, but its specializations
    // are reached through it.
    if (!isa<TemplateDecl>(D) && D->isTemplated())
      return true;
    if (isa<VarDecl, FunctionDecl>(D))
      Finder.match(*D, Ctx);
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool TraverseStmt(Stmt *S, DataRecursionQueue *Queue = nullptr) {
    if (!S)
      return true;
    if (isa<CallExpr>(S))
      Finder.match(*S, Ctx);
    return RecursiveASTVisitor::TraverseStmt(S, Queue);
  }

private:
  ast_matchers::MatchFinder &Finder;
  ASTContext &Ctx;
};

} // namespace

void matchInstantiated(ast_matchers::MatchFinder &Finder, ASTContext &Ctx) {
  InstantiatedWalk(Finder, Ctx).TraverseAST(Ctx);
}

} // namespace matchers
} // namespace tilefit
