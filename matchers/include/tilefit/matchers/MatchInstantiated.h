//===- MatchInstantiated.h - Matchers run outside template patterns -*- C++ -*-===//
//
// The collectors' matchers (SharedMemoryCollector, LaunchCollector,
// ConstantCollector) keep nothing a template pattern holds: a `__shared__` or
// `__constant__` variable and a kernel are matched `unless(isTemplated())`,
// and a launch or an API call in a templated function is dropped by its
// callback. MatchFinder::matchAST still walks every pattern's body, and on
// CuTe or CUTLASS most of the unit's code is patterns: CUTLASS example 48
// after an edit, 3.8 s -> 3.5 s of CPU time. This walk visits what matchAST
// visits, in the same order, but the templated declarations (their
// specializations are visited), and runs the finder on the kinds of node the
// collectors match.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_MATCHINSTANTIATED_H
#define TILEFIT_MATCHERS_MATCHINSTANTIATED_H

namespace clang {
class ASTContext;
namespace ast_matchers {
class MatchFinder;
} // namespace ast_matchers
} // namespace clang

namespace tilefit {
namespace matchers {

/// Runs \p Finder over \p Ctx's traversal scope as MatchFinder::matchAST
/// does, without entering templated declarations (a template's pattern, a
/// class template's members, a partial specialization; a template's
/// specializations are visited). Only variables, functions and calls are
/// offered to \p Finder: every matcher registered on it must match one of
/// those kinds and nothing templated (or have its callback drop what is).
/// The callbacks' onStartOfTranslationUnit and onEndOfTranslationUnit are
/// not called (MatchFinder::match runs the matchers on one node).
void matchInstantiated(clang::ast_matchers::MatchFinder &Finder,
                       clang::ASTContext &Ctx);

} // namespace matchers
} // namespace tilefit

#endif
