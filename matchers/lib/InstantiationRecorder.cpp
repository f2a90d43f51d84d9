//===- InstantiationRecorder.cpp ------------------------------------------===//
#include "tilefit/matchers/InstantiationRecorder.h"

#include "clang/AST/Decl.h"

namespace tilefit {
namespace matchers {

void InstantiationRecorder::atTemplateBegin(
    const clang::Sema &S, const clang::Sema::CodeSynthesisContext &Inst) {
  if (Inst.Kind != clang::Sema::CodeSynthesisContext::TemplateInstantiation)
    return;
  const auto *FD = llvm::dyn_cast_or_null<clang::FunctionDecl>(Inst.Entity);
  if (!FD || S.CodeSynthesisContexts.size() != 1)
    return;
  Points.try_emplace(FD, Inst.PointOfInstantiation);
}

} // namespace matchers
} // namespace tilefit
