//===- Config.h - .tilefit.yaml ---------------------------------*- C++ -*-===//
//
// tilefit's configuration file, looked up like .clang-tidy: the nearest
// `.tilefit.yaml` (or `.tilefit.json`) in the source's folder or a parent.
// YAML, or JSON (a subset of YAML):
//
//   Checks: 'tilefit-*,-tilefit-budget'   # which checks report
//   WarningsAsErrors: 'tilefit-budget'
//   Budget: 0.8                # fraction of the per-block opt-in maximum
//   Architectures: [sm_80, sm_90]
//   CapacityDatabase: limits.json          # relative to this file
//   HeaderFilterRegex: 'include/.*'
//   AllowParseErrors: true     # units with errors do not fail the run
//   KernelBudgets:
//     - Kernel: 'gemm_*'                   # a glob over kernel names
//       Bytes: 65536                       # or Fraction: 0.5
//   DynamicSharedMemory:                   # sizes tilefit cannot compute
//     - Kernel: 'softmax_*'                # a glob over kernel names
//       Bytes: 4096                        # per launch of unknown size
//   BlockShapes:                           # for the bank analysis, where no
//     - Kernel: 'reduce*'                  # launch gives a constant block
//       Shape: [256, 1, 1]
//   PrecompileIncludes: ['cub/*']          # leading #include lines to
//                                          # precompile (IncludePrefix.h)
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_CONFIG_H
#define TILEFIT_FRONTEND_CONFIG_H

#include "tilefit/model/Analysis.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// What a configuration sets; unset fields keep the defaults (or what another
/// layer sets).
struct Config {
  std::string
      Origin; ///< The file it came from, or `--config`; "" for the defaults.
  std::optional<std::string> Checks;
  std::optional<std::string> WarningsAsErrors;
  std::optional<double> Budget;
  std::optional<std::vector<std::string>> Architectures;
  std::optional<std::string> CapacityDatabase; ///< Absolute path.
  std::optional<std::string> HeaderFilterRegex;
  /// A unit with parse errors is analysed either way; this says whether it
  /// fails the run (exit status 2; default) or not.
  std::optional<bool> AllowParseErrors;
  std::optional<std::vector<KernelBudget>> KernelBudgets;
  /// Dynamic shared memory sizes the user states per kernel glob
  /// (AnalysisOptions::DynamicSizes).
  std::optional<std::vector<KernelDynamicSize>> DynamicSharedMemory;
  /// Block shapes per kernel glob, for the bank analysis
  /// (AnalysisOptions::BlockShapes).
  std::optional<std::vector<KernelBlockShape>> BlockShapes;
  /// Globs over the names of #include lines (`cub/*`, `"common.cuh"` is
  /// `common.cuh`): a unit whose leading #include lines name one has them
  /// precompiled, up to the last one named, with the CUDA runtime headers, even
  /// where no other unit starts with them (IncludePrefix.h).
  std::optional<std::vector<std::string>> PrecompileIncludes;

  /// Fields \p Over sets replace this one's.
  void overlay(const Config &Over);
  /// The configuration as YAML (for --dump-config).
  std::string toYaml() const;
};

/// Parses \p Text (YAML or JSON). \p Origin names it in errors; relative paths
/// in it are taken from \p BaseDir. Unknown keys and wrong types are errors
/// with the origin, line and column.
llvm::Expected<Config> parseConfig(llvm::StringRef Text,
                                   const std::string &Origin,
                                   const std::string &BaseDir);

/// The nearest `.tilefit.yaml` or `.tilefit.json` in \p Dir or a parent; "" if
/// none.
std::string findConfigFile(llvm::StringRef Dir);

/// Reads and parses a configuration file.
llvm::Expected<Config> loadConfigFile(const std::string &Path);

} // namespace frontend
} // namespace tilefit

#endif
