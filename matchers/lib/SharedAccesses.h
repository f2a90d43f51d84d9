//===- SharedAccesses.h - Loads and stores of __shared__ variables -*- C++
//-*-===//
//
// The bank analysis's input (model/Banks.h): every load and store of a
// `__shared__` variable in one function's body, its address written down as
// an expression over threadIdx, blockDim, the counters of the loops around it
// and constants (template arguments, constexpr values, locals initialized
// once and only read), with the conditions a thread must meet to make it.
//
// An access is an array subscript, a dereference or a member of the
// variable, directly or through a local pointer or reference derived from it
// by constant offsets and casts (`reinterpret_cast<float4 *>(&tile[r][0])`).
// Its width is the accessed type's size. An address that depends on anything
// else is recorded with the reason (SharedAccess::NotAnalysable): no guess.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SHAREDACCESSES_H
#define TILEFIT_MATCHERS_SHAREDACCESSES_H

#include "tilefit/model/Facts.h"

#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Appends to \p F's Accesses and Loops those of \p FD's body; \p VarIndex
/// gives each `__shared__` variable's index in TranslationUnitFacts::Vars.
void collectSharedAccesses(
    clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
    const llvm::DenseMap<const clang::VarDecl *, size_t> &VarIndex,
    FunctionFacts &F);

} // namespace matchers
} // namespace tilefit

#endif
