//===- Occupancy.cpp - Resident blocks per SM -----------------------------===//
//
// The calculation of cuda_occupancy.h (CUDA 13.0,
// cudaOccMaxActiveBlocksPerMultiprocessor) for a kernel whose attributes come
// from the runtime (as cudaFuncGetAttributes gives them): the opt-in limit
// configuration, one block barrier, no partitioned global caching, no virtual
// resources. With those inputs the barrier and virtual-resource limits never
// bind, so they are left out. The test suite compares this against the header
// itself.
//
//  1. Warps: blocks = floor(maxWarpsPerSM / ceil(threads / warpSize)); 0 above
//  the block's
//     thread limit.
//  2. Registers (when known): regs per warp rounded up to the allocation unit;
//  0 if the block
//     cannot have them (per block, with warps rounded up to the register file's
//     sub-partitions, or above the per-thread maximum); otherwise the warps
//     each sub-partition holds, times the sub-partitions, divided by the
//     block's warps.
//  3. Blocks: the architecture's resident-block maximum.
//  4. Shared memory: per block, static + reserved + dynamic rounded up to the
//  allocation
//     granularity. 0 if the dynamic part exceeds the kernel's dynamic limit
//     (the opt-in value, or 48 KiB - static by default) or the total exceeds
//     the per-block maximum (with opt-in when the kernel's limit needs it) plus
//     the reserve. Otherwise the SM's shared memory is the carveout preference
//     (all of it by default; else the percentage rounded up to the next
//     supported step), or the smallest step that holds one block if the
//     preference is smaller, divided by the per-block figure.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Report.h"

#include <algorithm>
#include <limits>

namespace tilefit {
namespace {

constexpr uint64_t NoLimit = std::numeric_limits<uint64_t>::max();

// Launch figures come from the command line and from constants in the source,
// so any of them may be near 2^64: sums and products saturate at NoLimit (more
// than any SM holds) instead of wrapping around to a small number that would
// fit.
uint64_t add(uint64_t X, uint64_t Y) {
  uint64_t R;
  return __builtin_add_overflow(X, Y, &R) ? NoLimit : R;
}
uint64_t mul(uint64_t X, uint64_t Y) {
  uint64_t R;
  return __builtin_mul_overflow(X, Y, &R) ? NoLimit : R;
}
uint64_t divideRoundUp(uint64_t X, uint64_t Y) { return X / Y + (X % Y != 0); }
uint64_t roundUp(uint64_t X, uint64_t Y) { return mul(Y, divideRoundUp(X, Y)); }

/// The smallest supported shared-memory capacity that holds \p Bytes.
std::optional<uint64_t> alignUpToStep(uint64_t Bytes,
                                      const std::vector<uint64_t> &Steps) {
  for (uint64_t Step : Steps)
    if (Bytes <= Step)
      return Step;
  return std::nullopt;
}

} // namespace

std::string limitNames(unsigned LimitedBy) {
  std::string S;
  auto Add = [&](unsigned Bit, const char *Name) {
    if (LimitedBy & Bit)
      S += (S.empty() ? "" : " and ") + std::string(Name);
  };
  Add(LimitSharedMemory, "shared memory");
  Add(LimitWarps, "warps");
  Add(LimitRegisters, "registers");
  Add(LimitBlocks, "blocks");
  return S;
}

Result<Occupancy> computeOccupancy(const ArchCapacity &A,
                                   const OccupancyInput &In) {
  auto Missing = [&](const char *What) {
    return ErrorMessage{"the capacity database has no " + std::string(What) +
                        " for " + A.Name};
  };
  if (!A.ThreadsPerBlock || !A.ThreadsPerSm || !A.WarpSize || !*A.WarpSize)
    return Missing("thread limits");
  if (!A.BlocksPerSm)
    return Missing("resident-block limit");
  if (!A.SharedPerSm || !A.BlockDefaultMax || !A.BlockOptinMax ||
      !A.ReservedPerBlock || !A.AllocGranularity || !*A.AllocGranularity ||
      A.CarveoutSteps.empty())
    return Missing("shared-memory figures");
  if (In.BlockThreads == 0)
    return ErrorMessage{"a block of 0 threads"};

  Occupancy O;
  // 1. Warps.
  O.WarpsPerBlock = divideRoundUp(In.BlockThreads, *A.WarpSize);
  uint64_t ByWarps = 0;
  if (In.BlockThreads <= *A.ThreadsPerBlock)
    ByWarps = (*A.ThreadsPerSm / *A.WarpSize) / O.WarpsPerBlock;

  // 2. Registers.
  uint64_t ByRegisters = NoLimit;
  if (In.Registers > 0) {
    if (!A.RegistersPerBlock || !A.RegistersPerSm || !A.RegisterAllocUnit ||
        !*A.RegisterAllocUnit || !A.RegistersPerThread ||
        !A.RegisterSubPartitions || !*A.RegisterSubPartitions)
      return Missing("register figures");
    uint64_t PerWarp =
        roundUp(mul(In.Registers, *A.WarpSize), *A.RegisterAllocUnit);
    uint64_t PerBlock = mul(PerWarp, O.WarpsPerBlock);
    uint64_t Assumed =
        mul(PerWarp, roundUp(O.WarpsPerBlock, *A.RegisterSubPartitions));
    if (*A.RegistersPerBlock < Assumed || *A.RegistersPerBlock < PerBlock ||
        In.Registers > *A.RegistersPerThread) {
      ByRegisters = 0;
    } else {
      uint64_t WarpsPerPartition =
          (*A.RegistersPerSm / *A.RegisterSubPartitions) / PerWarp;
      ByRegisters =
          WarpsPerPartition * *A.RegisterSubPartitions / O.WarpsPerBlock;
    }
  }

  // 3. Blocks.
  const uint64_t ByBlocks = *A.BlocksPerSm;

  // 4. Shared memory.
  const uint64_t Reserved = *A.ReservedPerBlock;
  const uint64_t Static = add(In.StaticBytes, Reserved);
  O.SmemPerBlock = roundUp(add(Static, In.DynamicBytes), *A.AllocGranularity);
  const uint64_t DefaultDynamic = *A.BlockDefaultMax > In.StaticBytes
                                      ? *A.BlockDefaultMax - In.StaticBytes
                                      : 0;
  const uint64_t MaxDynamic = In.OptInBytes ? *In.OptInBytes : DefaultDynamic;
  const uint64_t BlockLimit =
      add(add(Static, MaxDynamic) > *A.BlockDefaultMax ? *A.BlockOptinMax
                                                       : *A.BlockDefaultMax,
          Reserved);
  uint64_t BySmem;
  if (In.DynamicBytes > MaxDynamic || O.SmemPerBlock > BlockLimit) {
    BySmem = 0;
  } else {
    uint64_t Preference = *A.SharedPerSm;
    if (In.CarveoutPercent && *In.CarveoutPercent >= 0) {
      auto Step = alignUpToStep(
          mul(static_cast<uint64_t>(*In.CarveoutPercent), *A.SharedPerSm) / 100,
          A.CarveoutSteps);
      if (!Step)
        return ErrorMessage{"carveout " + std::to_string(*In.CarveoutPercent) +
                            "% is above every supported step of " + A.Name};
      Preference = *Step;
    } else if (auto Step = alignUpToStep(Preference, A.CarveoutSteps)) {
      Preference = *Step;
    }
    O.SmemPerSm = Preference;
    if (Preference < O.SmemPerBlock) {
      auto Step = alignUpToStep(O.SmemPerBlock, A.CarveoutSteps);
      if (!Step)
        return ErrorMessage{"no supported shared-memory capacity of " + A.Name +
                            " holds " + std::to_string(O.SmemPerBlock) +
                            " bytes"};
      O.SmemPerSm = *Step;
    }
    BySmem = O.SmemPerBlock > 0 ? O.SmemPerSm / O.SmemPerBlock : NoLimit;
  }
  O.BlocksBySharedMemory = BySmem;

  O.BlocksPerSm = std::min({ByWarps, ByRegisters, ByBlocks, BySmem});
  if (O.BlocksPerSm == ByWarps)
    O.LimitedBy |= LimitWarps;
  if (O.BlocksPerSm == ByRegisters)
    O.LimitedBy |= LimitRegisters;
  if (O.BlocksPerSm == BySmem)
    O.LimitedBy |= LimitSharedMemory;
  if (O.BlocksPerSm == ByBlocks)
    O.LimitedBy |= LimitBlocks;
  return O;
}

bool occupancyIsUpperBound(const KernelReport &K) {
  const OccupancyReport &O = K.Occupancy;
  if (!O.BlocksPerSm || O.Registers)
    return false;
  return !(K.Bounds && K.Bounds->MinBlocks && *O.BlocksPerSm <= *K.Bounds->MinBlocks);
}

} // namespace tilefit
