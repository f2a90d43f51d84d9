//===- OptIn.cpp - tilefit-optin -----------------------------------------===//
//
// Launches asking for more dynamic shared memory than the kernel may have, and
// opt-ins above what the architecture can give.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {
namespace {

/// Launches asking for more dynamic shared memory than the kernel is allowed,
/// and opt-ins above what the architecture can give.
class OptInCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &,
             const Recorder &Record) const override {
    if (!K.StaticBytes || !K.Limit.BlockDefaultMax || !K.Limit.BlockOptinMax)
      return;
    const uint64_t Static = *K.StaticBytes;
    const AttributeCall *OptIn = nullptr;
    for (const AttributeCall &A : K.Attributes)
      if (A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize)
        OptIn = &A;
    const uint64_t Room =
        *K.Limit.BlockOptinMax > Static ? *K.Limit.BlockOptinMax - Static : 0;
    if (OptIn && OptIn->Value && static_cast<uint64_t>(*OptIn->Value) > Room) {
      Diagnostic D = makeDiagnostic(
          CheckId::OptIn, K,
          "cudaFuncSetAttribute asks for " + bytesPhrase(*OptIn->Value) +
              " of dynamic shared memory for kernel '" + kernelWord(K.Name) +
              "' on " + archWord(K.Arch) + ", more than the " +
              bytesPhrase(Room) + " a block can have there beside its " +
              bytesPhrase(Static) + " of static shared memory; the call fails");
      D.Loc = OptIn->Loc;
      D.Notes.push_back(makeNote(
          "kernel '" + kernelWord(K.Name) + "' is defined here", K.Loc));
      Record(std::move(D));
    }
    if (OptIn && !OptIn->Value)
      return; // an opt-in value known only at run time: nothing to hold
              // launches against
    const uint64_t Default = *K.Limit.BlockDefaultMax > Static
                                 ? *K.Limit.BlockDefaultMax - Static
                                 : 0;
    for (const LaunchReport &L : K.Launches) {
      if (!L.DynamicBytes || !L.TotalBytes ||
          *L.TotalBytes > *K.Limit.BlockOptinMax)
        continue; // unknown, or beyond the hardware (tilefit-capacity says so)
      const uint64_t Allowed =
          OptIn ? static_cast<uint64_t>(*OptIn->Value) : Default;
      if (*L.DynamicBytes <= Allowed)
        continue;
      Words Msg = "launch of kernel '" + kernelWord(K.Name) + "' asks for " +
                  bytesPhrase(*L.DynamicBytes) +
                  " of dynamic shared memory on " + archWord(K.Arch) +
                  statedPhrase(L) + ", more than the " + bytesPhrase(Allowed);
      Msg += OptIn ? " set with cudaFuncSetAttribute; the launch fails"
                   : " it may have without opting in (48 KiB in all, " +
                         bytesPhrase(Static) + " static); the launch fails";
      Diagnostic D = makeDiagnostic(CheckId::OptIn, K, Msg);
      D.Loc = L.Loc;
      if (OptIn)
        D.Notes.push_back({"the opt-in is set here; raise it to at least " +
                               std::to_string(*L.DynamicBytes),
                           OptIn->Loc});
      else
        D.Notes.push_back(
            {"opt in before the launch: cudaFuncSetAttribute(" + K.Name +
                 ", cudaFuncAttributeMaxDynamicSharedMemorySize, " +
                 std::to_string(*L.DynamicBytes) + ")",
             K.Loc});
      for (const SharedVar &V : K.DynamicVars)
        D.Notes.push_back(
            {"'" + V.Name + "' is dynamic shared memory, sized at launch",
             V.Loc});
      Record(std::move(D));
    }
  }
};

} // namespace

std::unique_ptr<KernelCheck> createOptInCheck() {
  return std::make_unique<OptInCheck>();
}

} // namespace checks
} // namespace tilefit
