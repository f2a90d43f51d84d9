//===- Toolkit.h - Finding the CUDA toolkit ---------------------*- C++ -*-===//
#ifndef TILEFIT_FRONTEND_TOOLKIT_H
#define TILEFIT_FRONTEND_TOOLKIT_H

#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

struct CudaToolkit {
  std::string Path;    ///< The installation root; empty when none was found.
  std::string Version; ///< `13.0`, from include/cuda.h; empty if unknown.
  /// nvcc's own version, `13.0.88` (version.json, or the installation's
  /// dist-info); empty if unknown. Its last part is nvcc's
  /// __CUDACC_VER_BUILD__.
  std::string NvccVersion;
  std::string FoundBy;  ///< How: "--cuda-path", "CUDA_PATH", "CUDA_HOME", "nvcc
                        ///< on PATH", "default".
  bool HasCccl = false; ///< CUDA 13 layout: cub/thrust/cuda under include/cccl.
  /// Where tilefit looked, in order, for the message when nothing was found.
  std::vector<std::string> Searched;

  bool found() const { return !Path.empty(); }
};

/// Finds the toolkit as clang does: \p Explicit (--cuda-path) if given, else
/// $CUDA_PATH, $CUDA_HOME, the installation of `nvcc` on $PATH, then
/// /usr/local/cuda. A candidate counts when it has include/cuda_runtime.h. An
/// explicit path that is not a toolkit is returned with an empty Path and \p
/// Error set.
CudaToolkit findCudaToolkit(const std::string &Explicit, std::string &Error);

} // namespace frontend
} // namespace tilefit

#endif
