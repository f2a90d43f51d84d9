//===- CallArguments.cpp - What a call passes, as the model reads it ------===//
#include "CallArguments.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace tilefit {
namespace matchers {

using namespace clang;

const DeclRefExpr *namedArgument(const Expr *Arg) {
  for (int Depth = 0; Arg && Depth < 8; ++Depth) {
    Arg = Arg->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Arg))
      Arg = Cast->getSubExpr();
    else if (const auto *U = dyn_cast<UnaryOperator>(Arg);
             U && U->getOpcode() == UO_AddrOf)
      Arg = U->getSubExpr();
    else
      return dyn_cast<DeclRefExpr>(Arg);
  }
  return nullptr;
}

const FunctionDecl *resolvedCall(const Expr *Call,
                                 llvm::SmallVectorImpl<const Expr *> &Args,
                                 unsigned &Shift) {
  Shift = 0;
  if (const auto *C = dyn_cast<CallExpr>(Call)) {
    const FunctionDecl *Callee = C->getDirectCallee();
    Args.append(C->arg_begin(), C->arg_end());
    if (isa<CXXOperatorCallExpr>(C) && Callee && isa<CXXMethodDecl>(Callee))
      Shift = 1;
    return Callee;
  }
  if (const auto *C = dyn_cast<CXXConstructExpr>(Call)) {
    Args.append(C->arg_begin(), C->arg_end());
    return C->getConstructor();
  }
  return nullptr;
}

} // namespace matchers
} // namespace tilefit
