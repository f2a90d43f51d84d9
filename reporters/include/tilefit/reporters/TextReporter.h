//===- TextReporter.h - clang-style diagnostics and a summary ---*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_TEXTREPORTER_H
#define TILEFIT_REPORTERS_TEXTREPORTER_H

#include "tilefit/model/Report.h"
#include "tilefit/reporters/SourceLines.h"

#include <cstddef>
#include <ostream>

namespace tilefit {

class KernelNames;

/// One diagnostic in clang's format: `file:line:col: severity: message
/// [check]`, the source line with a caret, then each note the same way.
/// \p Names (null: none) shortens the kernel names quoted in its messages.
void renderDiagnostic(const Diagnostic &D, SourceLines &Lines, std::ostream &OS,
                      const KernelNames *Names = nullptr);

/// Every unit message and finding, then the per-kernel, per-architecture
/// summary table.
/// \p NameWidth: kernel names past it are shortened (KernelNameWidth.h); 0
/// keeps them whole.
void renderText(const Report &R, SourceLines &Lines, std::ostream &OS,
                size_t NameWidth = 0, bool OnlyFindings = false);

/// The summary table alone.
/// \p OnlyFindings: --summary=findings (buildSummary).
void renderSummary(const Report &R, std::ostream &OS, size_t NameWidth = 0,
                   bool OnlyFindings = false);

} // namespace tilefit

#endif
