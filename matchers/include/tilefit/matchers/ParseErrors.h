//===- ParseErrors.h --------------------------------------------*- C++ -*-===//
//
// Which kernels a unit's errors can have changed.
//
// A unit with errors is analysed as Clang built it, as clangd does for broken
// code: an error changes only the code around it. A kernel keeps its figures
// when no error can have changed them: no error inside its body, inside a
// function it reaches, inside a `__shared__` variable it reaches or that
// variable's type (or the types those hold); and no code it reaches that Clang
// could not build. Errors in host code never count. An error reported while a
// template specialization was being instantiated belongs to that specialization
// only: `k<float>`'s error leaves `k<int>` exact. After a fatal error Clang
// reports no more errors: code after it counts as touched by it.
//
// The model decides what an unknown figure means for the unit's other kernels
// (model/lib/Analysis.cpp); this layer only says which error touches which
// kernel.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_PARSEERRORS_H
#define TILEFIT_MATCHERS_PARSEERRORS_H

#include "clang/Basic/SourceLocation.h"

#include <cstddef>
#include <vector>

namespace clang {
class Decl;
}

namespace tilefit {
namespace matchers {

/// One error of the parse, as the front end saw it reported.
struct ParseError {
  clang::SourceLocation Loc;
  /// The specializations (functions and classes, canonical declarations) Sema
  /// was instantiating when it reported the error; empty outside any
  /// instantiation.
  std::vector<const clang::Decl *> Instantiating;
  /// Its index in TranslationUnitFacts::Diagnostics.
  size_t Diagnostic = 0;
  /// A fatal error (a missing #include): Clang parses on but reports no error
  /// after it, so nothing after it is known to be free of errors.
  bool Fatal = false;
};

} // namespace matchers
} // namespace tilefit

#endif
