//===- Capacity.cpp - tilefit-capacity -----------------------------------===//
//
// Shared memory per block above what a block can have on the architecture even
// with opt-in.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {
namespace {

class CapacityCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    if (!K.StaticBytes)
      return;
    const uint64_t Static = *K.StaticBytes;
    const uint64_t Total = totalBytes(K);
    const Words Who = "kernel '" + kernelWord(K.Name) + "'";
    if (K.Limit.BlockOptinMax && Total > *K.Limit.BlockOptinMax) {
      Diagnostic D = makeDiagnostic(
          CheckId::Capacity, K,
          Who + " needs " + totalPhrase(K, Total) +
              " of shared memory per block on " + archWord(K.Arch) +
              ", more than the " + bytesPhrase(*K.Limit.BlockOptinMax) +
              " a block can have there even with opt-in");
      D.Notes = allocationNotes(
          K, Total > Static ? Words() : "shrink it for " + archWord(K.Arch));
      const uint64_t Max = *K.Limit.BlockOptinMax, Dynamic = Total - Static;
      addFitNotes(K, C.Fit, Max, Dynamic, "fits a block on " + archWord(K.Arch),
                  D);
      if (Dynamic > 0 && Static < Max)
        D.Notes.push_back(makeNote(
            "a launch may ask for at most " + bytesPhrase(Max - Static) +
                " of dynamic shared memory for this kernel on " +
                archWord(K.Arch),
            K.Launches[*K.WorstLaunch].Loc));
      recordFinding(K, std::move(D), Record);
    }
  }
};

} // namespace

std::unique_ptr<KernelCheck> createCapacityCheck() {
  return std::make_unique<CapacityCheck>();
}

} // namespace checks
} // namespace tilefit
