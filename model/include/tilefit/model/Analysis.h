//===- Analysis.h - From facts to figures and findings ----------*- C++ -*-===//
#ifndef TILEFIT_MODEL_ANALYSIS_H
#define TILEFIT_MODEL_ANALYSIS_H

#include "tilefit/model/AnalysisOptions.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Facts.h"
#include "tilefit/model/Report.h"

#include <string>
#include <vector>

#include <algorithm>

namespace tilefit {

/// The launch asking for the most shared memory (by TotalBytes; the first of
/// equals), if any is known: KernelReport::WorstLaunch, for the analysis and
/// for a report read back from JSON.
std::optional<size_t> worstLaunch(const std::vector<LaunchReport> &Launches);

/// Sets each kernel's Worst (the summary's `!` and `~`) from the findings the
/// report holds: after the policy pass (NOLINT, the header filter,
/// --warnings-as-errors), and for a report read back from JSON. A kernel in a
/// header counts the findings about it from any unit.
void markWorstFindings(Report &R);

/// Lays out every kernel of \p TU, checks it against \p DB, and appends the
/// unit, its kernels and its findings to \p Out.
void analyzeUnit(const TranslationUnitFacts &TU, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out);

/// The checks over the whole program rather than one unit: the `__constant__`
/// data of the units compiled with -rdc, which nvlink links into one constant
/// bank, per architecture, is checked against the per-module limit (as if they
/// were linked together, as in one project). Call after every unit's
/// analyzeUnit.
void checkProgram(const AnalysisOptions &Opts, Report &R);

/// Sorts the report (units, kernels, diagnostics by file, line, architecture)
/// and drops duplicate diagnostics, e.g. the same header kernel seen from two
/// translation units.
void finalizeReport(Report &R);

/// Drops findings located outside their translation unit's own file unless \p
/// Keep (given the finding) says otherwise (clang-tidy's --header-filter);
/// returns how many were dropped. Unit messages (parse errors) are always kept.
template <typename Predicate>
size_t filterHeaderFindings(Report &R, Predicate Keep) {
  size_t Before = R.Diagnostics.size();
  R.Diagnostics.erase(std::remove_if(R.Diagnostics.begin(), R.Diagnostics.end(),
                                     [&](const Diagnostic &D) {
                                       return !D.TranslationUnit.empty() &&
                                              D.Loc.File != D.TranslationUnit &&
                                              !Keep(D);
                                     }),
                      R.Diagnostics.end());
  return Before - R.Diagnostics.size();
}

/// The most severe level among the report's findings and unit messages; nothing
/// if none.
std::optional<Severity> worstSeverity(const Report &R);

} // namespace tilefit

#endif
