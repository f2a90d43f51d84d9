//===- CallArguments.h - A call as the model reads it -----------*- C++ -*-===//
//
// The model counts a `__shared__` variable passed as an argument only where
// the callee uses the parameter that receives it (SharedMemoryCollector.cpp's
// UnusedParameters); the body slicer must keep the uses of those parameters
// (ArgumentFlow.h). Both read a call the same way, with these helpers: the
// function it resolves to, and the variables its arguments name.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_CALLARGUMENTS_H
#define TILEFIT_MATCHERS_CALLARGUMENTS_H

#include "llvm/ADT/SmallVector.h"

namespace clang {
class DeclRefExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// The variable \p Arg names when it is a plain use of one as an argument:
/// `v`, `&v`, `(void *)&v`.
const clang::DeclRefExpr *namedArgument(const clang::Expr *Arg);

/// The function \p Call (a call, member call, operator call or construction)
/// resolves to, or null; its arguments into \p Args, and in \p Shift how many
/// of them come before its parameters (a member operator's object).
const clang::FunctionDecl *
resolvedCall(const clang::Expr *Call,
             llvm::SmallVectorImpl<const clang::Expr *> &Args, unsigned &Shift);

} // namespace matchers
} // namespace tilefit

#endif
