//===- Checks.h - tilefit's checks, from Checks.def -------------*- C++ -*-===//
#ifndef TILEFIT_MODEL_CHECKS_H
#define TILEFIT_MODEL_CHECKS_H

#include "tilefit/model/Facts.h"

#include <string_view>
#include <vector>

namespace tilefit {

enum class CheckId {
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help) Enum,
#include "tilefit/model/Checks.def"
};

struct CheckInfo {
  CheckId Id;
  std::string_view Name;        ///< The check's id: `tilefit-static-limit`.
  std::string_view DisplayName; ///< For people: `StaticLimit`.
  Severity DefaultSeverity;
  std::string_view Summary;
  std::string_view Help;
};

const CheckInfo &checkInfo(CheckId Id);
const std::vector<CheckInfo> &allChecks();
std::string_view severityName(Severity S); ///< "error", "warning", "note"

} // namespace tilefit

#endif
