//===- Arch.h - GPU architecture names --------------------------*- C++ -*-===//
#ifndef TILEFIT_MODEL_ARCH_H
#define TILEFIT_MODEL_ARCH_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// A real GPU architecture: `sm_90`, `sm_90a` (architecture-specific),
/// `sm_100f` (family).
struct Arch {
  unsigned Number = 0; ///< 90 for sm_90: major * 10 + minor.
  char Suffix = 0;     ///< 0, 'a' or 'f'.

  std::string name() const;                              ///< `sm_90a`
  std::string baseName() const;                          ///< `sm_90`
  unsigned cudaArchMacro() const { return Number * 10; } ///< __CUDA_ARCH__: 900
  std::string computeCapability() const;                 ///< `9.0`
  bool operator==(const Arch &O) const {
    return Number == O.Number && Suffix == O.Suffix;
  }
};

/// Parses `sm_90`, `sm_90a`, `sm_100f`, and also `compute_90`/`90` as sm_90.
/// Returns nothing for anything else.
std::optional<Arch> parseArch(std::string_view Text);

/// The real architectures nvcc 13 compiles for, oldest first (`nvcc
/// --list-gpu-code`).
const std::vector<std::string> &nvccRealArchs();

/// nvcc 13's architecture when a command names none.
inline constexpr const char *DefaultArch = "sm_75";

} // namespace tilefit

#endif
