//===- ReportJson.h - The tilefit-report/1 document, both ways --*- C++ -*-===//
//
// The report's JSON codec (ReportJson.cpp): the `--format=json` output, what
// `tilefit diff`, `merge` and `--baseline` read back, and how the driver stores
// the report of each unit while the others are parsed (Parts.cpp). It lives in
// the model beside the facts' codec (FactsJson.h): storing a report is not
// rendering it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_REPORTJSON_H
#define TILEFIT_MODEL_REPORTJSON_H

#include "tilefit/model/Report.h"
#include "tilefit/model/Result.h"

#include <ostream>
#include <string>
#include <string_view>

namespace tilefit {

struct ToolInfo {
  std::string Name = "tilefit";
  std::string Version;
};

/// Writes the report as one JSON document (schema `tilefit-report/1`, described
/// in README.md).
void renderJson(const Report &R, const ToolInfo &Tool, std::ostream &OS);

/// Parses a report written by renderJson. Rendering the result again gives the
/// same document. \p Origin names the input in errors.
Result<Report> readJsonReport(std::string_view Text, const std::string &Origin);
Result<Report> loadJsonReport(const std::string &Path);

} // namespace tilefit

#endif
