//===- NvccOnlyCode.h - Code the parse skips and nvcc compiles --*- C++ -*-===//
//
// The parse leaves __NVCC__ undefined (README.md, "Limits"): code of the
// project's own under `#ifdef __NVCC__`, `#if defined(__NVCC__) && ...`, or the
// `#else` of an `#ifndef __NVCC__`, is skipped by Clang and compiled by nvcc.
// Where such a skipped block holds a kernel or a launch, its kernels would be
// missing from the report without a word: the preprocessor's skipped ranges say
// where, and each becomes a warning at its directive.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_NVCCONLYCODE_H
#define TILEFIT_FRONTEND_NVCCONLYCODE_H

#include "tilefit/matchers/KernelNames.h"
#include "tilefit/model/Facts.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <vector>

namespace clang {
class Preprocessor;
}

namespace tilefit {
namespace frontend {

/// Watches \p PP's conditional directives; appends a warning to \p Out for each
/// block of the project's own code (not a system header) that a directive on a
/// macro nvcc defines and the parse does not makes Clang skip, when the block
/// holds `__global__` or `<<<`.
void watchNvccOnlyCode(clang::Preprocessor &PP, std::vector<Diagnostic> &Out);

/// Watches \p PP's skipped blocks; sets \p Found when one of the project's own
/// (not a system header) under a directive on `__CUDA_ARCH__` (`#ifndef
/// __CUDA_ARCH__`, the `#else` of `#ifdef __CUDA_ARCH__`, ...) holds a launch
/// or an attribute call (`<<<`, cudaLaunchKernel, cudaLaunchKernelEx,
/// cudaLaunchCooperativeKernel, cudaFuncSetAttribute): code a host-side parse
/// can read and this one cannot.
void watchSkippedHostCalls(clang::Preprocessor &PP, bool &Found);

/// Watches \p PP's conditional directives; records in \p Out the project's own
/// blocks on `__CUDA_ARCH__` and the skipped ranges that may hold a
/// definition, for nvcc's module id (matchers::KernelNamer); files under
/// \p Ignored (tilefit's own headers, which nvcc never reads) are left out.
void watchArchConditionals(clang::Preprocessor &PP,
                           matchers::ArchConditionals &Out,
                           const std::string &Ignored);

/// The offset of the first line of \p Text that is a conditional directive on a
/// macro nvcc defines and the parse does not (`#ifdef __NVCC__`) or on
/// `__CUDA_ARCH__`, or npos. The language server's preamble ends before it: the
/// preprocessor must see the directive in the parse itself to say what the
/// block it skips holds.
size_t firstNvccOnlyConditional(llvm::StringRef Text);

/// The macros nvcc defines that the parse leaves undefined.
const std::vector<const char *> &nvccOnlyMacros();

} // namespace frontend
} // namespace tilefit

#endif
