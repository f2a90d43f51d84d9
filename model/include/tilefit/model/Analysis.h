//===- Analysis.h - From facts to figures and findings ----------*- C++ -*-===//
#ifndef TILEFIT_MODEL_ANALYSIS_H
#define TILEFIT_MODEL_ANALYSIS_H

#include "tilefit/model/Capacity.h"
#include "tilefit/model/Facts.h"
#include "tilefit/model/Report.h"

#include <algorithm>

namespace tilefit {

struct AnalysisOptions {
  /// tilefit-budget warns above this fraction of the per-block opt-in maximum.
  double Budget = 0.9;
  /// Registers per thread for occupancy (--registers); else the command's -maxrregcount.
  std::optional<uint64_t> Registers;
};

/// Lays out every kernel of \p TU, checks it against \p DB, and appends the unit, its kernels
/// and its findings to \p Out.
void analyzeUnit(const TranslationUnitFacts &TU, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out);

/// Sorts the report (units, kernels, diagnostics by file, line, architecture) and drops
/// duplicate diagnostics, e.g. the same header kernel seen from two translation units.
void finalizeReport(Report &R);

/// Drops findings located outside their translation unit's own file unless the file passes
/// \p Keep (clang-tidy's --header-filter); returns how many were dropped. Unit messages (parse
/// errors) are always kept.
template <typename Predicate> size_t filterHeaderFindings(Report &R, Predicate Keep) {
  size_t Before = R.Diagnostics.size();
  R.Diagnostics.erase(std::remove_if(R.Diagnostics.begin(), R.Diagnostics.end(),
                                     [&](const Diagnostic &D) {
                                       return !D.TranslationUnit.empty() &&
                                              D.Loc.File != D.TranslationUnit && !Keep(D.Loc.File);
                                     }),
                      R.Diagnostics.end());
  return Before - R.Diagnostics.size();
}

/// The most severe level among the report's findings and unit messages; nothing if none.
std::optional<Severity> worstSeverity(const Report &R);

} // namespace tilefit

#endif
