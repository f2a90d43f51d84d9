//===- Layout.h - ptxas's static shared-memory layout -----------*- C++ -*-===//
//
// Where ptxas puts each `__shared__` variable of a kernel, and the "bytes smem"
// figure it prints. The rules, and the probes they were worked out from, are
// documented in Layout.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_LAYOUT_H
#define TILEFIT_MODEL_LAYOUT_H

#include "tilefit/model/Facts.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {

struct Placement {
  size_t Var = 0; ///< Index into TranslationUnitFacts::Vars.
  std::optional<uint64_t>
      Offset; ///< Byte offset in the kernel's static shared memory.
  bool SharedWithOtherKernels =
      false;                  ///< Another kernel of the unit reaches it too.
  bool AtModuleScope = false; ///< Placed after the kernel's own variables.
};

struct KernelLayout {
  /// The kernel's static shared memory as ptxas reports it; unset when unknown.
  std::optional<uint64_t> Total;
  std::string UnknownReason;
  /// Total is unknown because the sum does not fit 64 bits: more than any
  /// limit.
  bool Overflows = false;
  /// The end of the last variable, before any rounding of the total (equal to
  /// Total unless RoundedTo is set).
  std::optional<uint64_t> End;
  /// Set when the total was rounded up to this multiple (see Layout.cpp).
  std::optional<uint64_t> RoundedTo;
  std::vector<Placement> Placed; ///< Static variables in layout order.
  bool DynamicDeclared =
      false; ///< The kernel reaches an `extern __shared__` array.
  std::vector<size_t> Dynamic; ///< The `extern __shared__` arrays it reaches.
};

/// The order in which NVVM emits \p Vars in the PTX module, from the walk \p P
/// over the unit (indices into \p Vars; every variable once). Used for
/// `__shared__` and `__constant__` variables alike.
std::vector<size_t> emissionOrder(const std::vector<SharedVar> &Vars,
                                  const EmissionProgram &P);

/// Leaves out of \p P the functions whose completion cannot place a variable:
/// no statics of their own, no variable in their bodies, and no function their
/// bodies complete or reference that can; and the events that name them. The
/// walk then takes the same steps for every variable (emissionOrder gives the
/// same order, whatever the variables), and the facts, the result cache and
/// the language server's memo do not carry the rest: on CUTLASS example 48, 9
/// of 10,934 functions can place a `__shared__` variable, 2 a `__constant__`
/// one.
void pruneEmission(EmissionProgram &P);

/// The layout of every kernel of one translation unit (one architecture).
class UnitLayout {
public:
  explicit UnitLayout(const TranslationUnitFacts &TU);
  KernelLayout layout(size_t Kernel) const;
  /// The kernel's layout if variable \p Var had \p Bytes bytes (same alignment
  /// and order): what a smaller tile would give.
  KernelLayout layoutWith(size_t Kernel, size_t Var, uint64_t Bytes) const;

  /// The unit's variables in the order nvcc emits them in the PTX module.
  const std::vector<size_t> &emissionOrder() const { return Order; }

  /// For a unit with errors, which may hide kernels (and what they reach) from
  /// the facts: every total the kernel could have if hidden kernels also
  /// reached some of the variables it may share with other kernels (a device
  /// function's static, a namespace-scope variable: placed after its own ones
  /// when shared) or some `extern __shared__` array no kernel is seen to reach
  /// (which rounds the total). Unset when there are too many combinations to
  /// try (more than 2^10). \p Culprit is set to a variable whose sharing
  /// changes the total, when one does.
  std::optional<std::vector<uint64_t>>
  possibleTotals(size_t Kernel, std::optional<size_t> &Culprit) const;

private:
  KernelLayout layoutImpl(size_t Kernel, size_t Changed, uint64_t NewBytes,
                          const std::vector<size_t> &AlsoShared,
                          std::optional<uint64_t> Rounding) const;

  const TranslationUnitFacts &TU;
  std::vector<size_t> Order;        ///< Emission order (indices into Vars).
  std::vector<unsigned> Rank;       ///< Rank[var] = its position in Order.
  std::vector<unsigned> ReachCount; ///< How many kernels reach each variable.
  std::optional<uint64_t> ExternRounding; ///< See Layout.cpp.
};

} // namespace tilefit

#endif
