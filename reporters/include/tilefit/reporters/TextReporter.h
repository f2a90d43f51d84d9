//===- TextReporter.h - clang-style diagnostics and a summary ---*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_TEXTREPORTER_H
#define TILEFIT_REPORTERS_TEXTREPORTER_H

#include "tilefit/model/Report.h"
#include "tilefit/reporters/SourceLines.h"

#include <ostream>

namespace tilefit {

/// One diagnostic in clang's format: `file:line:col: severity: message [check]`, the source
/// line with a caret, then each note the same way.
void renderDiagnostic(const Diagnostic &D, SourceLines &Lines, std::ostream &OS);

/// Every unit message and finding, then the per-kernel, per-architecture summary table.
void renderText(const Report &R, SourceLines &Lines, std::ostream &OS);

/// The summary table alone.
void renderSummary(const Report &R, std::ostream &OS);

} // namespace tilefit

#endif
