//===- Registry.cpp - The kernel checks, from Checks.def ------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {

#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_KERNEL_CHECK(Enum, Name, Sev, Summary, Help)                   \
  std::unique_ptr<KernelCheck> create##Enum##Check();
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

} // namespace checks
} // namespace tilefit
