//===- Registry.cpp - The checks, from Checks.def -------------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {

#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_KERNEL_CHECK(Enum, Name, Sev, Summary, Help)                   \
  std::unique_ptr<KernelCheck> create##Enum##Check();
#define TILEFIT_UNIT_CHECK(Enum, Name, Sev, Summary, Help)                     \
  std::unique_ptr<UnitCheck> create##Enum##Check();
#include "tilefit/model/Checks.def"

const std::vector<std::unique_ptr<KernelCheck>> &kernelChecks() {
  static const std::vector<std::unique_ptr<KernelCheck>> Checks = [] {
    std::vector<std::unique_ptr<KernelCheck>> V;
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_KERNEL_CHECK(Enum, Name, Sev, Summary, Help)                   \
  V.push_back(create##Enum##Check());
#include "tilefit/model/Checks.def"
    return V;
  }();
  return Checks;
}

const std::vector<std::unique_ptr<UnitCheck>> &unitChecks() {
  static const std::vector<std::unique_ptr<UnitCheck>> Checks = [] {
    std::vector<std::unique_ptr<UnitCheck>> V;
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_UNIT_CHECK(Enum, Name, Sev, Summary, Help)                     \
  V.push_back(create##Enum##Check());
#include "tilefit/model/Checks.def"
    return V;
  }();
  return Checks;
}

} // namespace checks
} // namespace tilefit
