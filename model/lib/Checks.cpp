//===- Checks.cpp ---------------------------------------------------------===//
#include "tilefit/model/Checks.h"

namespace tilefit {

const std::vector<CheckInfo> &allChecks() {
  static const std::vector<CheckInfo> Checks = {
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)                          \
  {CheckId::Enum, Name, #Enum, Severity::Sev, Summary, Help},
#include "tilefit/model/Checks.def"
  };
  return Checks;
}

const CheckInfo &checkInfo(CheckId Id) {
  return allChecks()[static_cast<size_t>(Id)];
}

std::string_view severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Remark:
    return "remark";
  case Severity::Note:
    return "note";
  }
  return "error";
}

} // namespace tilefit
