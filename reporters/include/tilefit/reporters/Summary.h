//===- Summary.h - The per-kernel, per-architecture table -------*- C++ -*-===//
//
// Shared by the text and Markdown reporters: the cells are computed once, each
// reporter lays them out in its own way.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_REPORTERS_SUMMARY_H
#define TILEFIT_REPORTERS_SUMMARY_H

#include "tilefit/model/Report.h"

#include <cstddef>
#include <string>
#include <vector>

namespace tilefit {

struct SummaryTable {
  std::vector<std::string>
      Header; ///< "kernel", then one column per architecture.
  /// One per kernel, in report order, each followed by a "  registers" row when
  /// some architecture's report of the kernel has per-thread arrays and a "
  /// tensor memory" row when one has Tensor Memory allocations (sub-rows' names
  /// start with two spaces).
  std::vector<std::vector<std::string>> Rows;
  std::vector<std::string> Footer; ///< The per-block maximum per architecture.
  std::vector<std::string> Legend; ///< Lines explaining the marks used.
  /// One line per translation unit with `__constant__` data: its bytes against
  /// the limit, per group of architectures with the same figures.
  std::vector<std::string> ConstantMemory;
  /// "N of M units failed to parse:" and a line per such unit with its first
  /// error; empty when every unit parsed (parseFailures).
  std::vector<std::string> Failures;
};

/// \p NameWidth: kernel names past it are shortened (KernelNameWidth.h); 0
/// keeps them whole.
/// \p OnlyFindings (--summary=findings): only kernels with a finding have rows.
/// Neighbouring architectures whose every cell (and per-block maximum) agrees
/// share one column, headed `sm_86,sm_89` or `sm_100..sm_120`.
SummaryTable buildSummary(const Report &R, size_t NameWidth = 0,
                          bool OnlyFindings = false);

/// The lines that say which units failed to parse, each with its first error
/// (empty when none did): the end of the text report, also when no kernel was
/// found.
std::vector<std::string> parseFailures(const Report &R);

/// A kernel's per-thread arrays: "256 B = 64 regs of 128, 64 KiB/block",
/// "unknown", "-".
std::string registersCell(const KernelReport &K);

/// A kernel's Tensor Memory: "128/512 cols", "? cols", "-" (none, or no Tensor
/// Memory).
std::string tensorMemoryCell(const KernelReport &K);

/// Architectures by number (sm_80 before sm_100), then by name.
bool archBefore(const std::string &A, const std::string &B);

/// One kernel's cell: "4.1 KiB", "1 KiB + 100 KiB (3/SM)", "2 KiB + ? !".
std::string summaryCell(const KernelReport &K);

} // namespace tilefit

#endif
