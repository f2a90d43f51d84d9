//===- Budget.cpp - tilefit-budget ---------------------------------------===//
//
// Shared memory above the budget fraction (or a kernel's own budget) of the
// per-block maximum.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/GlobList.h"

#include <cstdio>

namespace tilefit {
namespace checks {
namespace {

class BudgetCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    if (!K.StaticBytes)
      return;
    const uint64_t Static = *K.StaticBytes;
    const uint64_t Total = totalBytes(K);
    const Words Who = "kernel '" + kernelWord(K.Name) + "'";
    // A kernel above a hard limit has its error (tilefit-static-limit,
    // tilefit-capacity), not a budget warning besides.
    const bool Over = (K.Limit.StaticMax && Static > *K.Limit.StaticMax) ||
                      (K.Limit.BlockOptinMax && Total > *K.Limit.BlockOptinMax);
    if (!Over && K.Limit.BlockOptinMax && *K.Limit.BlockOptinMax > 0) {
      // The kernel's own budget if one matches its name, else the fraction for
      // all.
      const KernelBudget *Own = nullptr;
      for (const KernelBudget &B : C.Opts.KernelBudgets)
        if (!Own && globMatch(B.Kernel, K.Name))
          Own = &B;
      const double Fraction =
          Own && Own->Fraction ? *Own->Fraction : C.Opts.Budget;
      const uint64_t Limit =
          Own && Own->Bytes
              ? *Own->Bytes
              : static_cast<uint64_t>(
                    Fraction * static_cast<double>(*K.Limit.BlockOptinMax));
      if (Total > Limit) {
        const double Used = static_cast<double>(Total) /
                            static_cast<double>(*K.Limit.BlockOptinMax);
        char Pct[32];
        std::snprintf(Pct, sizeof(Pct), "%.1f%%", Used * 100);
        std::string Over;
        if (Own && Own->Bytes) {
          Over = "its budget of " + bytesPhrase(*Own->Bytes) + " (" +
                 Own->Kernel + ")";
        } else {
          char BudgetPct[32];
          std::snprintf(BudgetPct, sizeof(BudgetPct), "%g%%", Fraction * 100);
          Over = std::string("the ") + BudgetPct + " budget" +
                 (Own ? " (" + Own->Kernel + ")" : "");
        }
        Diagnostic D = makeDiagnostic(
            CheckId::Budget, K,
            Who + " uses " + totalPhrase(K, Total) + " of shared memory on " +
                archWord(K.Arch) + ", " + Pct + " of the " +
                bytesPhrase(*K.Limit.BlockOptinMax) +
                " per-block maximum, above " + Over);
        D.Figures.push_back({"budget_bytes", Limit});
        D.Notes = allocationNotes(K, "");
        addFitNotes(K, C.Fit, Limit, Total - Static, "fits the budget", D);
        recordFinding(K, std::move(D), Record);
      }
    }
  }
};

} // namespace

std::unique_ptr<KernelCheck> createBudgetCheck() {
  return std::make_unique<BudgetCheck>();
}

} // namespace checks
} // namespace tilefit
