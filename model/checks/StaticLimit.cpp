//===- StaticLimit.cpp - tilefit-static-limit ----------------------------===//
//
// Static shared memory above what ptxas accepts for static allocations (with
// what would fit).
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {
namespace {

class StaticLimitCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    if (!K.StaticBytes) {
      // A sum past 64 bits has no figure, but is certainly above the static
      // limit.
      if (K.Overflows && K.Limit.StaticMax) {
        Diagnostic D = makeDiagnostic(
            CheckId::StaticLimit, K,
            "kernel '" + kernelWord(K.Name) +
                "' declares more static shared memory on " + archWord(K.Arch) +
                " than 64 bits can count, far more than the " +
                bytesPhrase(*K.Limit.StaticMax) +
                " ptxas accepts for static allocations");
        D.Notes = allocationNotes(K, "");
        recordFinding(K, std::move(D), Record);
      }
      return;
    }
    const uint64_t Static = *K.StaticBytes;
    const Words Who = "kernel '" + kernelWord(K.Name) + "'";
    if (K.Limit.StaticMax && Static > *K.Limit.StaticMax) {
      Diagnostic D = makeDiagnostic(
          CheckId::StaticLimit, K,
          Who + " uses " + bytesPhrase(Static) +
              " of static shared memory on " + archWord(K.Arch) +
              ", more than the " + bytesPhrase(*K.Limit.StaticMax) +
              " ptxas accepts for static allocations");
      D.Notes = allocationNotes(
          K, "declare it 'extern __shared__' and size it at launch to go "
             "above the static limit");
      // The allocation notes put the largest array first, with that advice.
      if (!D.Notes.empty())
        D.Notes.front().Fix = C.Fit.externFix(K);
      const uint64_t Max = *K.Limit.StaticMax;
      for (Note &N :
           C.Fit.extentNotes([&](uint64_t T) { return T <= Max; },
                             "fits the " + bytesPhrase(Max) + " static limit"))
        D.Notes.push_back(std::move(N));
      recordFinding(K, std::move(D), Record);
    }
  }
};

} // namespace

std::unique_ptr<KernelCheck> createStaticLimitCheck() {
  return std::make_unique<StaticLimitCheck>();
}

} // namespace checks
} // namespace tilefit
