//===- CommandTranslation.h -------------------------------------*- C++ -*-===//
//
// From a build's command to parse flags.
//
// A compile command as the build ran it (nvcc's or clang's) becomes the flags
// that matter for parsing the source in CUDA device mode, in clang's spelling,
// plus the architectures the build targets. Nothing that writes files, runs
// programs or loads code is passed on.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_COMMANDTRANSLATION_H
#define TILEFIT_FRONTEND_COMMANDTRANSLATION_H

#include "tilefit/frontend/CompileCommand.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// One device target of a command: the real architecture ptxas compiles for,
/// and the `__CUDA_ARCH__` value the source is compiled with (from the virtual
/// architecture).
struct DeviceTarget {
  std::string Real;      ///< `sm_86`, `sm_90a`
  unsigned CudaArch = 0; ///< 800 for `-gencode arch=compute_80,code=sm_86`
  /// Only PTX is built for it (`code=compute_90` with no `sm_90`): the driver
  /// compiles it at run time, on a GPU of that architecture or newer.
  bool Jit = false;
  bool operator==(const DeviceTarget &O) const {
    return Real == O.Real && CudaArch == O.CudaArch;
  }
};

struct DeviceFlags {
  bool IsCuda = false; ///< A CUDA source: `.cu`, or `-x cu`/`-x cuda`.
  bool IsNvcc = false; ///< The command was nvcc's.
  std::vector<std::string>
      ClangArgs; ///< Parse-relevant flags in clang's spelling.
  std::vector<DeviceTarget>
      Targets;      ///< The command's architectures; empty if it names none.
  bool Rdc = false; ///< Relocatable device code (-rdc=true, -fgpu-rdc).
  std::string CudaPath;                 ///< `--cuda-path=` of a clang command.
  std::optional<uint64_t> MaxRegisters; ///< nvcc's -maxrregcount.
  std::vector<std::string>
      Unknown; ///< Flags not understood, dropped (one warning per run).
  std::vector<std::string>
      Refused; ///< Flags that would load code into tilefit: dropped.
  std::vector<std::string>
      Warnings; ///< Choices the user should hear about, once per run.
  /// `-arch=native`: the building machine's GPU, unknown here; nvcc's default
  /// architecture is analysed instead, and the run says so (nativeArchWarning)
  /// unless --arch chose.
  bool NativeArch = false;
};

/// Translates \p Cmd. Response files must already be expanded.
DeviceFlags translateCommand(const CompileCommand &Cmd);

/// What a run says when a command asks for `-arch=native` and no --arch chose.
std::string nativeArchWarning();

/// Whether \p Compiler (argv[0]) is nvcc.
bool isNvcc(llvm::StringRef Compiler);

/// Whether \p Arg names a CUDA compiler as the first word of a pasted command:
/// nvcc, clang, clang++, clang++-19, with or without a folder.
bool isCompilerName(llvm::StringRef Arg);

/// Whether compiler arguments given without a compiler (tilefit's own after
/// `--`) are nvcc's: some flag only nvcc spells so (`-arch=sm_80`, `-gencode
/// ...`, `--use_fast_math`, `--expt-relaxed-constexpr`) and none of Clang's
/// CUDA spellings (`--cuda-gpu-arch=`, `--offload-arch=`, `-fgpu-rdc`). Flags
/// both share (`-I`, `-D`, `-std=`) say nothing.
bool argumentsLookLikeNvcc(const std::vector<std::string> &Args);

} // namespace frontend
} // namespace tilefit

#endif
