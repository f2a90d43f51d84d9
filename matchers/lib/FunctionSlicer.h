//===- FunctionSlicer.h - Slice one device function template ----*- C++ -*-===//
//
// Step 3 of body slicing (BodySlicer.cpp): one device function template's
// body, statement by statement. A statement is kept by the rules BodySlicer.h
// lists, read against the closure (SliceClosure.h), together with the
// declarations it uses and the control statements around it; the rest is
// replaced by empty statements.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_FUNCTIONSLICER_H
#define TILEFIT_MATCHERS_FUNCTIONSLICER_H

#include "SliceClosure.h"

#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace tilefit {
namespace matchers {
namespace slicing {

/// Whether slicing \p FD can save anything and cannot change what it means:
/// a device function template, not evaluated at compile time, whose return
/// type is written.
bool sliceable(const clang::FunctionDecl *FD);

/// Slices \p Fn's body by what \p Closed and \p Reach say, keeping the uses
/// of the parameters \p ParamsMatter (positions in \p Fn's own list) that may
/// receive a `__shared__` variable (ArgumentFlow.h): each statement
/// left out is replaced by an empty statement, and where and by what is
/// appended to \p Replaced; \p Dropped counts them, \p MaybeArrays those that
/// may hold per-thread arrays; \p DroppedParams gets the parameters those
/// name. False where nothing was dropped (or nothing could be). \p Closed's
/// Outside must be set.
bool sliceFunction(
    clang::ASTContext &Ctx, clang::FunctionDecl *Fn, UnitClosure &Closed,
    Positions ParamsMatter, const Reaching &Reach, bool Relocatable,
    unsigned &Dropped,
    unsigned &MaybeArrays, Positions &DroppedParams,
    std::vector<std::pair<clang::Stmt **, clang::Stmt *>> &Replaced);

} // namespace slicing
} // namespace matchers
} // namespace tilefit

#endif
