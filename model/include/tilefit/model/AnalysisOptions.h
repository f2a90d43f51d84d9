//===- AnalysisOptions.h - What the analysis is asked to do -----*- C++ -*-===//
//
// The options of the model's analysis (Analysis.h), read by the checks too
// (model/checks), apart from the analysis itself so that the checks depend on
// the options and not on the stage that runs them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_ANALYSISOPTIONS_H
#define TILEFIT_MODEL_ANALYSISOPTIONS_H

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// What a budget may be (--budget, Budget in .tilefit.yaml, the language
/// server's `budget` setting, a kernel budget's Fraction): a fraction of the
/// per-block opt-in maximum in (0, 1]. BudgetRange words it.
inline bool isBudgetFraction(double V) { return V > 0 && V <= 1; }
constexpr const char *BudgetRange =
    "a fraction in (0, 1] or a percentage in (0%, 100%]";

/// A budget as written: `0.9` or `90%` (as --max-growth takes `5%`); nothing
/// when \p Text is neither or out of range.
inline std::optional<double> parseBudgetFraction(std::string_view Text) {
  while (!Text.empty() && Text.back() == ' ')
    Text.remove_suffix(1);
  const bool Percent = !Text.empty() && Text.back() == '%';
  if (Percent)
    Text.remove_suffix(1);
  const std::string Number(Text);
  if (Number.empty() ||
      Number.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  char *End = nullptr;
  double V = std::strtod(Number.c_str(), &End);
  if (End != Number.c_str() + Number.size())
    return std::nullopt;
  if (Percent)
    V /= 100;
  if (!isBudgetFraction(V))
    return std::nullopt;
  return V;
}

/// A budget of its own for the kernels whose name matches a glob.
struct KernelBudget {
  std::string Kernel;            ///< Glob over kernel names: `gemm_*`.
  std::optional<uint64_t> Bytes; ///< Shared memory per block, static + dynamic.
  std::optional<double> Fraction; ///< Of the per-block opt-in maximum.
};

/// A dynamic shared memory size the user states for the kernels whose name
/// matches a glob, where tilefit cannot compute it (DynamicSharedMemory in
/// .tilefit.yaml).
struct KernelDynamicSize {
  std::string Kernel; ///< Glob over kernel names.
  uint64_t Bytes = 0;
};

/// The block shape the user states for the kernels whose name matches a glob,
/// for the bank analysis where no launch gives one (BlockShapes in
/// .tilefit.yaml).
struct KernelBlockShape {
  std::string Kernel; ///< Glob over kernel names.
  uint64_t X = 1, Y = 1, Z = 1;
};

struct AnalysisOptions {
  /// tilefit-budget warns above this fraction of the per-block opt-in maximum.
  double Budget = 0.9;
  /// The first one whose glob matches a kernel replaces Budget for it.
  std::vector<KernelBudget> KernelBudgets;
  /// The first one whose glob matches a kernel gives the size of each of its
  /// launches whose size is not a compile-time constant, or of one launch
  /// where the unit has none.
  std::vector<KernelDynamicSize> DynamicSizes;
  /// The first one whose glob matches a kernel gives its block's shape to the
  /// bank analysis where no launch has a constant one.
  std::vector<KernelBlockShape> BlockShapes;
  /// The checks that report (clang-tidy's glob list); problems with the unit
  /// itself (tilefit-input, clang-diagnostic-error) always do.
  std::string Checks = "*";
  /// Registers per thread for occupancy (--registers); else the command's
  /// -maxrregcount.
  std::optional<uint64_t> Registers;
};

} // namespace tilefit

#endif
