//===- LaunchSites.cpp ----------------------------------------------------===//
#include "tilefit/matchers/LaunchSites.h"

#include "tilefit/matchers/SourcePosition.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

/// A constant launch argument: an integer, or a dim3 (the product of its fields).
std::optional<uint64_t> evaluate(const ASTContext &Ctx, const Expr *E, std::string &Why) {
  if (!E || isa<CXXDefaultArgExpr>(E))
    return std::nullopt;
  if (E->isValueDependent() || E->isTypeDependent()) {
    Why = "it depends on a template parameter";
    return std::nullopt;
  }
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx) || R.HasSideEffects) {
    Why = "it depends on a value known only at run time";
    return std::nullopt;
  }
  const APValue &V = R.Val;
  if (V.isInt()) {
    if (V.getInt().isSigned() && V.getInt().isNegative()) {
      Why = "it is negative (" + std::to_string(V.getInt().getSExtValue()) + ")";
      return std::nullopt;
    }
    return V.getInt().getZExtValue();
  }
  if (V.isStruct()) {
    uint64_t Product = 1;
    for (unsigned I = 0; I < V.getStructNumFields(); ++I) {
      const APValue &F = V.getStructField(I);
      if (!F.isInt())
        return std::nullopt;
      Product *= F.getInt().getZExtValue();
    }
    return Product;
  }
  Why = "it is not an integer";
  return std::nullopt;
}

} // namespace

const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *Call) {
  return Call->getDirectCallee();
}

LaunchSite describeLaunch(const ASTContext &Ctx, const CUDAKernelCallExpr *Call) {
  LaunchSite L;
  L.Loc = toSourcePos(Ctx.getSourceManager(), Call->getBeginLoc());
  const CallExpr *Config = Call->getConfig();
  if (!Config || Config->getNumArgs() < 2) {
    L.UnknownReason = "the launch configuration could not be read";
    return L;
  }
  std::string Ignored;
  L.BlockThreads = evaluate(Ctx, Config->getArg(1)->IgnoreImplicit(), Ignored);
  if (Config->getNumArgs() < 3 || isa<CXXDefaultArgExpr>(Config->getArg(2))) {
    L.DynamicBytes = 0; // <<<grid, block>>>: no dynamic shared memory
    return L;
  }
  std::string Why;
  L.DynamicBytes = evaluate(Ctx, Config->getArg(2)->IgnoreImplicit(), Why);
  if (!L.DynamicBytes)
    L.UnknownReason = "the dynamic shared memory size is not a compile-time constant: " +
                      (Why.empty() ? std::string("it could not be evaluated") : Why);
  return L;
}

} // namespace matchers
} // namespace tilefit
