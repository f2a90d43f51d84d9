//===- JsonReporter.h - The tilefit-report/1 JSON document ------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_JSONREPORTER_H
#define TILEFIT_REPORTERS_JSONREPORTER_H

#include "tilefit/model/Report.h"

#include <ostream>
#include <string>

namespace tilefit {

struct ToolInfo {
  std::string Name = "tilefit";
  std::string Version;
};

/// Writes the report as one JSON document (schema `tilefit-report/1`, described
/// in README.md).
void renderJson(const Report &R, const ToolInfo &Tool, std::ostream &OS);

} // namespace tilefit

#endif
