//===- SliceClosure.h - What can reach shared memory ------------*- C++ -*-===//
//
// Steps 1 and 2 of body slicing (BodySlicer.cpp): the inventory of the unit
// (its `__shared__` variables' names, its device functions and kernels with
// bodies, what each names) and the closures over it: the functions, names and
// type declarations that can reach shared memory, and the functions that can
// hold per-thread arrays (Reaching, BodySlicer.h). Step 3, each template's
// statements (FunctionSlicer.h), reads both.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SLICECLOSURE_H
#define TILEFIT_MATCHERS_SLICECLOSURE_H

#include "SliceNames.h"

#include "tilefit/matchers/BodySlicer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {
namespace slicing {

/// Whether functions the slicer's inventory does not hold (the CUDA runtime
/// headers', left out of it whether or not they are precompiled, so that a
/// parse slices alike either way) hold per-thread arrays: their bodies read
/// when a statement calls one, once each.
class OutsideArrays {
public:
  enum Kind { None = 0, Maybe = 1, Exact = 2 };
  /// \p Inside: the inventory's functions (their closure nodes).
  OutsideArrays(const clang::ASTContext &Ctx,
                llvm::DenseSet<const clang::FunctionDecl *> Inside)
      : Ctx(Ctx), Inside(std::move(Inside)) {}

  /// The most any of \p N's resolved callees outside the inventory holds.
  Kind of(const Names &N);

  Kind kind(const clang::FunctionDecl *FD, unsigned Depth);

private:
  class Scan;

  const clang::ASTContext &Ctx;
  const llvm::DenseSet<const clang::FunctionDecl *> Inside;
  llvm::DenseMap<const clang::FunctionDecl *, Kind> Known;
};

/// One function of the inventory and what it names: its own code, and the
/// lambdas it holds.
struct FunctionNode {
  clang::FunctionDecl *Fn;
  Names N, Lambdas;
};

/// What steps 1 and 2 leave for step 3, beyond Reaching.
struct UnitClosure {
  /// The names of the unit's `__shared__` variables.
  llvm::StringSet<> SharedNames;
  /// Variables outside functions whose initializers name a `__shared__`
  /// variable: they stand for it.
  llvm::DenseSet<const clang::VarDecl *> SharedAliases;
  /// Every device function and kernel with a body (patterns, not
  /// instantiations), and what it names.
  std::vector<FunctionNode> Functions;
  /// The per-thread arrays of functions outside the inventory.
  std::optional<OutsideArrays> Outside;
  /// Functions that hold a lambda that reaches: instantiated whole.
  llvm::SmallPtrSet<const clang::FunctionDecl *, 8> Whole;
};

/// Steps 1 and 2 over \p Scope (the declarations the unit's traversal
/// visits): the inventory into \p Unit, what can reach shared memory and hold
/// per-thread arrays into \p Reach. Returns why nothing can be sliced, or
/// none (\p Reach then holds what the closure had found when it stopped).
Reason closeOver(clang::ASTContext &Ctx, llvm::ArrayRef<clang::Decl *> Scope,
                 bool Relocatable, Reaching &Reach, UnitClosure &Unit);

} // namespace slicing
} // namespace matchers
} // namespace tilefit

#endif
