//===- Summary.h - The per-kernel, per-architecture table -------*- C++ -*-===//
//
// Shared by the text and Markdown reporters: the cells are computed once, each reporter lays
// them out in its own way.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_REPORTERS_SUMMARY_H
#define TILEFIT_REPORTERS_SUMMARY_H

#include "tilefit/model/Report.h"

#include <string>
#include <vector>

namespace tilefit {

struct SummaryTable {
  std::vector<std::string> Header;            ///< "kernel", then one column per architecture.
  std::vector<std::vector<std::string>> Rows; ///< One per kernel, in report order.
  std::vector<std::string> Footer;            ///< The per-block maximum per architecture.
  std::vector<std::string> Legend;            ///< Lines explaining the marks used.
};

SummaryTable buildSummary(const Report &R);

/// Architectures by number (sm_80 before sm_100), then by name.
bool archBefore(const std::string &A, const std::string &B);

/// One kernel's cell: "4.1 KiB", "1 KiB + 100 KiB (3/SM)", "2 KiB + ? !".
std::string summaryCell(const KernelReport &K);

} // namespace tilefit

#endif
