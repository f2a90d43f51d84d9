//===- fuzz_config.cpp - The configuration loader (.tilefit.yaml) ---------===//
//
// The input is a configuration, YAML or JSON. When it parses, --dump-config's
// YAML of it must parse again to the same configuration (a configuration
// tilefit writes is one it reads, with every string and number as it was).
//
//===----------------------------------------------------------------------===//
#include "tilefit/frontend/Config.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit::frontend;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto C = parseConfig(Text, "fuzz.yaml", "/work/project");
  if (!C) {
    llvm::consumeError(C.takeError());
    return 0;
  }
  Config Merged;
  Merged.overlay(*C);
  std::string Yaml = Merged.toYaml();
  auto Again = parseConfig(Yaml, "fuzz.yaml", "/work/project");
  if (!Again) {
    std::fprintf(stderr, "the dumped configuration does not parse: %s\n%s\n",
                 llvm::toString(Again.takeError()).c_str(), Yaml.c_str());
    std::abort();
  }
  auto Same = [](const Config &A, const Config &B) {
    auto Budgets = [](const Config &X) {
      std::vector<std::tuple<std::string, std::optional<uint64_t>,
                             std::optional<double>>>
          Out;
      for (const tilefit::KernelBudget &K :
           X.KernelBudgets.value_or(decltype(*X.KernelBudgets){}))
        Out.emplace_back(K.Kernel, K.Bytes, K.Fraction);
      return Out;
    };
    return A.Checks.value_or("*") == B.Checks.value_or("*") &&
           A.WarningsAsErrors.value_or("") == B.WarningsAsErrors.value_or("") &&
           A.Budget.value_or(0.9) == B.Budget.value_or(0.9) &&
           A.Architectures.value_or(std::vector<std::string>()) ==
               B.Architectures.value_or(std::vector<std::string>()) &&
           A.CapacityDatabase == B.CapacityDatabase &&
           A.HeaderFilterRegex.value_or("") ==
               B.HeaderFilterRegex.value_or("") &&
           Budgets(A) == Budgets(B);
  };
  if (!Same(*C, *Again) || Again->toYaml() != Yaml) {
    std::fprintf(
        stderr,
        "the dumped configuration reads back differently:\n%s\n---\n%s\n",
        Yaml.c_str(), Again->toYaml().c_str());
    std::abort();
  }
  return 0;
}
