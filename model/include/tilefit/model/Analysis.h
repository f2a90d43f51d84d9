//===- Analysis.h - From facts to figures and findings ----------*- C++ -*-===//
#ifndef TILEFIT_MODEL_ANALYSIS_H
#define TILEFIT_MODEL_ANALYSIS_H

#include "tilefit/model/Capacity.h"
#include "tilefit/model/Facts.h"
#include "tilefit/model/Report.h"

namespace tilefit {

struct AnalysisOptions {
  /// tilefit-budget warns above this fraction of the per-block opt-in maximum.
  double Budget = 0.9;
};

/// Lays out every kernel of \p TU, checks it against \p DB, and appends the unit, its kernels
/// and its findings to \p Out.
void analyzeUnit(const TranslationUnitFacts &TU, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out);

/// Sorts the report (units, kernels, diagnostics by file, line, architecture) and drops
/// duplicate diagnostics, e.g. the same header kernel seen from two translation units.
void finalizeReport(Report &R);

/// The most severe level among the report's findings and unit messages; nothing if none.
std::optional<Severity> worstSeverity(const Report &R);

} // namespace tilefit

#endif
