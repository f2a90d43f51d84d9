//===- Registers.cpp - tilefit-registers ---------------------------------===//
//
// Per-thread local arrays above the registers a thread may have.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

#include "tilefit/model/Scopes.h"

#include <algorithm>

namespace tilefit {
namespace checks {
namespace {

/// One note per per-thread array, largest first.
std::vector<Note> arrayNotes(const KernelReport &K) {
  std::vector<const SharedVar *> Sorted;
  for (const SharedVar &V : K.Registers.Arrays)
    Sorted.push_back(&V);
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const SharedVar *L, const SharedVar *R) {
                     return L->Bytes.value_or(0) > R->Bytes.value_or(0);
                   });
  std::vector<Note> Notes;
  for (const SharedVar *V : Sorted) {
    if (!V->Bytes || *V->Bytes == 0)
      continue;
    std::string Msg = "'" + V->Name + "' takes " + bytesPhrase(*V->Bytes) +
                      shapeSuffix(*V) + " per thread, " +
                      registersPhrase(*V->Bytes / 4 + (*V->Bytes % 4 != 0));
    if (!V->Function.empty() && V->Function != K.Name)
      Msg += ", in '" + V->Function + "'";
    Notes.push_back({Msg, V->Loc});
  }
  return Notes;
}

/// Per-thread arrays live at once above the registers ptxas may give a thread,
/// or, without __launch_bounds__, above what a block of its launch can have. A
/// remark without a verdict: what ptxas does with them (keeps them in
/// registers after optimizing, puts them in the stack frame, spills) is not
/// known from the source.
class RegistersCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    const ArchCapacity *Arch = C.Arch;
    const RegisterTileReport &R = K.Registers;
    if (!R.RegistersPerThread || *R.RegistersPerThread == 0)
      return;
    const uint64_t Regs = *R.RegistersPerThread;
    Words Message = "kernel '" + kernelWord(K.Name) + "' declares " +
                    bytesPhrase(*R.BytesPerThread) +
                    " per thread in local arrays live at once on " +
                    archWord(K.Arch) + " (" + registersPhrase(Regs) + ")";
    std::vector<Note> Extra;
    std::optional<uint64_t> LaunchLimit;
    if (R.Limit && Regs > *R.Limit) {
      if (R.LimitBasis == "registers.per_thread")
        Message += "; a thread can have at most " + std::to_string(*R.Limit) +
                   " registers";
      else
        Message += "; " + R.LimitBasis +
                   (K.Bounds ? " leaves at most " : " allows at most ") +
                   std::to_string(*R.Limit) + " registers per thread";
      if (K.Bounds && R.LimitBasis.rfind("__launch_bounds__", 0) == 0 &&
          !R.LimitNote.empty())
        Extra.push_back({R.LimitNote + ": at most " + std::to_string(*R.Limit) +
                             " registers per thread",
                         K.Bounds->Loc});
      else if (K.Bounds && R.LimitBasis.rfind("__launch_bounds__", 0) == 0)
        Extra.push_back(
            {R.LimitBasis + " asks for " +
                 std::to_string(K.Bounds->MinBlocks.value_or(1)) +
                 " resident " +
                 (K.Bounds->MinBlocks.value_or(1) == 1 ? "block" : "blocks") +
                 " of " + std::to_string(*K.Bounds->MaxThreads) +
                 " threads per SM here: at most " + std::to_string(*R.Limit) +
                 " registers per thread",
             K.Bounds->Loc});
    } else if (!K.Bounds && Arch) {
      // Without __launch_bounds__ ptxas does not know the block size: a launch
      // whose block cannot have the registers the kernel ends up with fails.
      const LaunchReport *Widest = nullptr;
      for (const LaunchReport &L : K.Launches)
        if (L.BlockThreads &&
            (!Widest || *L.BlockThreads > *Widest->BlockThreads))
          Widest = &L;
      if (!Widest)
        return;
      auto Fits = launchBoundsRegisterLimit(*Arch, *Widest->BlockThreads, 1);
      if (!Fits || Regs <= *Fits || (R.Limit && *R.Limit <= *Fits))
        return;
      LaunchLimit = *Fits;
      Message += "; a block of " + std::to_string(*Widest->BlockThreads) +
                 " threads can have at most " + std::to_string(*Fits) +
                 " registers per thread there, and a launch whose kernel uses "
                 "more fails (too many resources requested)";
      Extra.push_back({"launched here with " +
                           std::to_string(*Widest->BlockThreads) +
                           " threads per block",
                       Widest->Loc});
    } else {
      return;
    }
    Message += "; which of them stay in registers is ptxas's choice";
    Diagnostic D = makeDiagnostic(CheckId::Registers, K, Message);
    D.Figures = {{"array_bytes_per_thread", *R.BytesPerThread},
                 {"array_registers_per_thread", Regs}};
    if (R.Limit)
      D.Figures.push_back({"registers_per_thread_limit", *R.Limit});
    if (LaunchLimit)
      D.Figures.push_back({"launch_registers_per_thread_limit", *LaunchLimit});
    D.Notes = arrayNotes(K);
    D.Notes.insert(D.Notes.end(), Extra.begin(), Extra.end());
    recordFinding(K, std::move(D), Record);
  }
};

} // namespace

std::unique_ptr<KernelCheck> createRegistersCheck() {
  return std::make_unique<RegistersCheck>();
}

} // namespace checks
} // namespace tilefit
