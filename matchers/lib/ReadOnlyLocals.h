//===- ReadOnlyLocals.h - Locals a function only reads ----------*- C++ -*-===//
//
// Whether a local variable keeps its initializer's value: nothing in the
// function writes it, takes a non-const reference or pointer to it, or calls a
// non-const member function on it. LaunchEvaluator.h follows such locals to
// their initializers.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_READONLYLOCALS_H
#define TILEFIT_MATCHERS_READONLYLOCALS_H

namespace clang {
class Stmt;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Whether every use of the local \p VD in \p Body only reads it: then its
/// initializer is its value everywhere.
bool neverWritten(const clang::VarDecl *VD, const clang::Stmt *Body);

} // namespace matchers
} // namespace tilefit

#endif
