//===- Scopes.h - Registers, constant memory and Tensor Memory --*- C++ -*-===//
//
// The on-chip scopes besides shared memory, from a unit's facts: the per-thread
// arrays a kernel keeps (registers), the unit's `__constant__` data, and the
// Tensor Memory columns a kernel allocates. The rules, and the ptxas runs they
// were checked against, are in Scopes.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_SCOPES_H
#define TILEFIT_MODEL_SCOPES_H

#include "tilefit/model/Capacity.h"
#include "tilefit/model/Facts.h"
#include "tilefit/model/Report.h"
#include "tilefit/model/Result.h"

#include <cstdint>
#include <optional>

namespace tilefit {

/// The registers per thread ptxas may allocate to a kernel declared
/// `__launch_bounds__(MaxThreads, MinBlocks)` on \p Arch, so that MinBlocks
/// blocks of MaxThreads threads are resident at once (MinBlocks 1: one block of
/// MaxThreads threads can launch):
///
///   W      = ceil(MaxThreads / warp_size)                        warps per
///   block P      = ceil(W x MinBlocks / sub_partitions)                 warps
///   per register-file part R_warp = floor(per_sm / sub_partitions / P),
///   rounded down to allocation_unit limit  = min(per_thread, R_warp /
///   warp_size)
///
/// When MinBlocks blocks do not fit an SM (more threads, counted in whole
/// warps, or more blocks than it holds), ptxas ignores the minimum and caps by
/// MaxThreads alone; so does this, setting \p MinimumIgnored. An error when the
/// database lacks a figure or the block itself is too large.
Result<uint64_t> launchBoundsRegisterLimit(const ArchCapacity &Arch,
                                           uint64_t MaxThreads,
                                           uint64_t MinBlocks,
                                           bool *MinimumIgnored = nullptr);

/// The kernel's per-thread arrays with their totals, the block size and the
/// register limit ptxas works under (__launch_bounds__, else \p MaxRegisters
/// from -maxrregcount, else the architecture's per-thread maximum).
RegisterTileReport registerTiles(const TranslationUnitFacts &TU,
                                 const KernelFacts &K, const ArchCapacity *Arch,
                                 std::optional<uint64_t> MaxRegisters);

/// The kernel's Tensor Memory allocations against the columns of an SM; nothing
/// on an architecture the database says has no Tensor Memory.
std::optional<TensorMemoryReport> tensorMemory(const KernelFacts &K,
                                               const ArchCapacity *Arch);

/// The unit's `__constant__` variables laid out as ptxas lays out the module's
/// constant bank (emission order, or with -rdc by alignment, largest first;
/// each at the next multiple of its alignment), against the per-module limit.
ConstantMemoryReport constantMemory(const TranslationUnitFacts &TU,
                                    const ArchCapacity *Arch);

/// Whether \p Columns is a count one `tcgen05.alloc` may ask for: a power of 2
/// from \p Min to \p Max.
bool validTmemAllocation(uint64_t Columns, uint64_t Min, uint64_t Max);

} // namespace tilefit

#endif
