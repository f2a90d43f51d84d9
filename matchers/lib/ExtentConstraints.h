//===- ExtentConstraints.h - What static_asserts require --------*- C++ -*-===//
//
// What a kernel instantiation's `static_assert`s require of its template
// parameters and constants (ExtentConstraint, Facts.h), read from the
// conditions as the instantiation spells them. SharedMemoryCollector.cpp
// records them with each kernel.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_EXTENTCONSTRAINTS_H
#define TILEFIT_MATCHERS_EXTENTCONSTRAINTS_H

#include "tilefit/model/Facts.h"

#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// What the static_asserts of \p Kernel's own body require of one name each,
/// the other names at this instantiation's values: `N % K == 0`, `K % N == 0`,
/// `N >= K` (and >, <=, <), `(N & (N - 1)) == 0`, and conjunctions of those; K
/// a constant or another template argument (`BM % WM == 0` is BM a multiple of
/// WM's value, and WM a divisor of BM's). Other conditions say nothing.
std::vector<ExtentConstraint> constraintsOf(const clang::FunctionDecl *Kernel,
                                            clang::ASTContext &Ctx);

} // namespace matchers
} // namespace tilefit

#endif
