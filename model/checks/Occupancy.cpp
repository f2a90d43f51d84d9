//===- Occupancy.cpp - tilefit-occupancy ---------------------------------===//
//
// Blocks per SM limited by shared memory: fewer than __launch_bounds__ asks for
// (a warning), or a remark with what would give one more.
//
//===----------------------------------------------------------------------===//
#include "CheckSupport.h"

namespace tilefit {
namespace checks {
namespace {

/// Notes saying what would give one more block per SM: smaller extents, less
/// dynamic memory.
void addNextStepNotes(const KernelReport &K, const KernelContext &C,
                      bool Certain, Diagnostic &D) {
  if (!C.Arch || !K.Occupancy.BlockThreads || !K.Occupancy.BlocksPerSm)
    return;
  const uint64_t Target = *K.Occupancy.BlocksPerSm + 1;
  OccupancyInput Base =
      occupancyInput(K, *K.Occupancy.BlockThreads, C.Registers, C.Carveout);
  auto BlocksWith = [&](uint64_t Static, uint64_t Dynamic) -> uint64_t {
    OccupancyInput In = Base;
    In.StaticBytes = Static;
    In.DynamicBytes = Dynamic;
    auto O = computeOccupancy(*C.Arch, In);
    return O ? O->BlocksPerSm : 0;
  };
  const std::string Goal =
      (Certain ? "fits " : "would have shared memory for ") +
      std::to_string(Target) + " blocks per SM instead of " +
      std::to_string(*K.Occupancy.BlocksPerSm);
  auto Notes = C.Fit.extentNotes(
      [&](uint64_t Static) {
        return BlocksWith(Static, Base.DynamicBytes) >= Target;
      },
      Goal);
  D.Notes.insert(D.Notes.end(), Notes.begin(), Notes.end());
  if (K.WorstLaunch && Base.DynamicBytes > 0)
    if (auto Most =
            FitAdvisor::largest(Base.DynamicBytes - 1, [&](uint64_t Dyn) {
              return BlocksWith(Base.StaticBytes, Dyn) >= Target;
            }))
      D.Notes.push_back(
          {"with at most " + bytesPhrase(*Most) +
               " of dynamic shared memory at this launch, the kernel " + Goal,
           K.Launches[*K.WorstLaunch].Loc});
}

/// Occupancy limited by shared memory: a warning when
/// __launch_bounds__(threads, minBlocks) asks for more blocks than fit, else a
/// remark; each with what would give one more block.
class OccupancyCheck : public KernelCheck {
public:
  void check(const KernelReport &K, const KernelContext &C,
             const Recorder &Record) const override {
    const OccupancyReport &O = K.Occupancy;
    if (!O.BlocksPerSm || *O.BlocksPerSm == 0)
      return;
    // A kernel above a hard limit does not run at all: no advice on its
    // occupancy.
    if (K.StaticBytes &&
        ((K.Limit.StaticMax && *K.StaticBytes > *K.Limit.StaticMax) ||
         (K.Limit.BlockOptinMax && totalBytes(K) > *K.Limit.BlockOptinMax)))
      return;
    const uint64_t Blocks = *O.BlocksPerSm;
    const bool Bounded = K.Bounds && K.Bounds->MinBlocks;
    const bool OnlySmem = O.LimitedBy == "shared memory";
    const bool BySmem = O.LimitedBy.find("shared memory") != std::string::npos;
    // Only where shared memory is what limits the blocks: when warps, registers
    // or the block limit do, less shared memory would not give one more block
    // (ggml's kernels, bounded and small, had a remark each).
    const bool TooFew = Bounded && Blocks < *K.Bounds->MinBlocks && BySmem;
    if (!TooFew && !OnlySmem)
      return;
    // The kernel's occupancy is a fact only where its registers are known
    // (--registers, -maxrregcount), or where __launch_bounds__ makes ptxas
    // keep them to at least as many blocks as shared memory allows. Elsewhere
    // ptxas's register count may allow fewer blocks (168 registers a thread
    // allow 3 blocks of 128 threads where shared memory allows 5): the figure
    // is what shared memory allows, and is said so.
    const bool Certain = !occupancyIsUpperBound(K);
    const Words BlocksOf = std::to_string(Blocks) +
                           (Blocks == 1 ? " block" : " blocks") + " of " +
                           std::to_string(*O.BlockThreads) +
                           " threads per SM on " + archWord(K.Arch);
    Words Fits = Certain ? "kernel '" + kernelWord(K.Name) + "' fits " +
                               BlocksOf + " (limited by " + O.LimitedBy + ", " +
                               bytesPhrase(*O.SmemPerBlock) +
                               " of shared memory per block)"
                         : "kernel '" + kernelWord(K.Name) +
                               "': shared memory allows at most " + BlocksOf +
                               " (" + bytesPhrase(*O.SmemPerBlock) +
                               " of shared memory per block); its registers, "
                               "not known before ptxas "
                               "(--registers, -maxrregcount or "
                               "__launch_bounds__ say them), may allow "
                               "fewer";
    Diagnostic D = makeDiagnostic(CheckId::Occupancy, K, Fits);
    if (TooFew) {
      D.Message += ", fewer than the " + std::to_string(*K.Bounds->MinBlocks) +
                   " its __launch_bounds__ asks for";
      D.Notes.push_back({"__launch_bounds__ asks for " +
                             std::to_string(*K.Bounds->MinBlocks) +
                             " blocks per SM here",
                         K.Bounds->Loc});
      std::vector<Note> Allocations = allocationNotes(K, "");
      D.Notes.insert(D.Notes.end(), Allocations.begin(), Allocations.end());
    } else {
      D.Level = Severity::Remark;
    }
    addLaunchNotes(K, D);
    if (OnlySmem)
      addNextStepNotes(K, C, Certain, D);
    recordFinding(K, std::move(D), Record);
  }
};

} // namespace

std::unique_ptr<KernelCheck> createOccupancyCheck() {
  return std::make_unique<OccupancyCheck>();
}

} // namespace checks
} // namespace tilefit
