//===- SarifReporter.h - SARIF 2.1.0 for code scanning ----------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_SARIFREPORTER_H
#define TILEFIT_REPORTERS_SARIFREPORTER_H

#include "tilefit/model/Report.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/SourceLines.h"

#include <ostream>
#include <string>

namespace tilefit {

struct SarifOptions {
  /// Absolute folder URIs are made relative to (the `SRCROOT` base); "" for
  /// absolute URIs.
  std::string SourceRoot;
  /// Where the tool's documentation lives (tool.driver.informationUri).
  std::string InformationUri;
};

/// One SARIF 2.1.0 log with one run: the driver with a rule per check, a result
/// per finding (unit messages included) with its notes as related locations,
/// the architecture and figures in properties, and fingerprints that survive
/// edits elsewhere in the file.
void renderSarif(const Report &R, const ToolInfo &Tool,
                 const SarifOptions &Opts, SourceLines &Lines,
                 std::ostream &OS);

} // namespace tilefit

#endif
