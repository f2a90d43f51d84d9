//===- JsonReader.h - Reading tilefit-report/1 back -------------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_JSONREADER_H
#define TILEFIT_REPORTERS_JSONREADER_H

#include "tilefit/model/Report.h"
#include "tilefit/model/Result.h"

#include <string>
#include <string_view>

namespace tilefit {

/// Parses a report written by renderJson (for `tilefit diff`, `merge` and
/// `--baseline`). Rendering the result again gives the same document. \p Origin
/// names the input in errors.
Result<Report> readJsonReport(std::string_view Text, const std::string &Origin);
Result<Report> loadJsonReport(const std::string &Path);

} // namespace tilefit

#endif
