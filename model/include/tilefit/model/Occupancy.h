//===- Occupancy.h - Resident blocks per SM ---------------------*- C++ -*-===//
//
// How many blocks of a kernel an SM holds at once, as NVIDIA's occupancy
// calculator (cuda_occupancy.h, CUDA 13) computes it from the capacity
// database's figures. The calculation is described, step by step, in
// Occupancy.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_OCCUPANCY_H
#define TILEFIT_MODEL_OCCUPANCY_H

#include "tilefit/model/Capacity.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilefit {

struct OccupancyInput {
  uint64_t BlockThreads = 0;
  uint64_t Registers = 0; ///< Per thread; 0 = unknown (registers do not limit).
  uint64_t StaticBytes = 0;  ///< Static shared memory (ptxas's figure).
  uint64_t DynamicBytes = 0; ///< Requested at launch.
  /// cudaFuncAttributeMaxDynamicSharedMemorySize, if set; else the default (48
  /// KiB - static).
  std::optional<uint64_t> OptInBytes;
  /// cudaFuncAttributePreferredSharedMemoryCarveout (0-100), if set.
  std::optional<int> CarveoutPercent;
};

enum OccupancyLimit : unsigned {
  LimitWarps = 1,
  LimitRegisters = 2,
  LimitSharedMemory = 4,
  LimitBlocks = 8,
};

struct Occupancy {
  uint64_t BlocksPerSm = 0;
  unsigned LimitedBy = 0; ///< OccupancyLimit bits: every factor at the minimum.
  uint64_t BlocksBySharedMemory =
      0; ///< The shared-memory limit alone (UINT64_MAX: none).
  uint64_t SmemPerBlock =
      0; ///< Shared memory allocated per block, reserve included.
  uint64_t SmemPerSm =
      0; ///< Shared memory the SM is configured with (carveout).
  uint64_t WarpsPerBlock = 0;
};

/// Resident blocks per SM, or an error message naming what the database lacks
/// or why the input is invalid.
Result<Occupancy> computeOccupancy(const ArchCapacity &Arch,
                                   const OccupancyInput &In);

/// "shared memory", "warps", "registers" or "blocks"; several joined with " and
/// ".
std::string limitNames(unsigned LimitedBy);

} // namespace tilefit

#endif
