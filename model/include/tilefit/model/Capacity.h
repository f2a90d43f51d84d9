//===- Capacity.h - The per-architecture capacity database ------*- C++ -*-===//
//
// Limits per GPU architecture, loaded at run time from JSON
// (data/capacity.json; the format is described in data/README.md). The numbers
// live only there: no code hard-codes a limit.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_CAPACITY_H
#define TILEFIT_MODEL_CAPACITY_H

#include "tilefit/model/Result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

struct RawEntries;

/// The limits of one architecture. Every number is optional: a field the
/// database leaves out or sets to null is unknown, and checks that need it say
/// so instead of guessing.
struct ArchCapacity {
  std::string Name;                    ///< `sm_90`
  std::string ComputeCapability;       ///< `9.0`
  std::optional<uint64_t> SharedPerSm; ///< Shared memory per SM, bytes.
  std::optional<uint64_t>
      BlockDefaultMax; ///< Static + dynamic per block without opt-in.
  std::optional<uint64_t>
      BlockOptinMax; ///< Per block with opt-in (sharedMemPerBlockOptin).
  std::optional<uint64_t>
      StaticMax; ///< Static `__shared__` per kernel (ptxas's limit).
  std::optional<uint64_t>
      ReservedPerBlock; ///< Reserved by the driver for each resident block.
  std::optional<uint64_t>
      AllocGranularity; ///< Shared memory allocation unit per block.
  std::optional<uint64_t>
      UnifiedL1Shared; ///< Unified L1 + shared size per SM, bytes.
  std::optional<bool>
      OptinSupported; ///< cudaFuncAttributeMaxDynamicSharedMemorySize exists.
  std::vector<uint64_t>
      CarveoutSteps; ///< Supported shared-memory capacities per SM, bytes.
  std::optional<uint64_t> RegistersPerSm;
  std::optional<uint64_t> RegistersPerBlock;
  std::optional<uint64_t> RegistersPerThread;
  std::optional<uint64_t> RegisterAllocUnit;
  std::optional<uint64_t>
      RegisterSubPartitions; ///< The register file's partitions per SM.
  std::optional<uint64_t> WarpSize;
  std::optional<uint64_t> ThreadsPerBlock;
  std::optional<uint64_t> ThreadsPerSm;
  std::optional<uint64_t> WarpsPerSm;
  std::optional<uint64_t> BlocksPerSm;
  std::optional<uint64_t>
      ConstantBytes; ///< `__constant__` data per module (ptxas's limit).
  std::optional<uint64_t>
      TensorMemoryColumns; ///< 0 where the architecture has none.
  /// The fewest columns one `tcgen05.alloc` may ask for (a power of 2 up to the
  /// columns).
  std::optional<uint64_t> TensorMemoryMinAllocColumns;
  /// Shared-memory banks (model/Banks.h): how many, their width in bytes, the
  /// phases of a warp's 8- and 16-byte request, and where that is documented.
  std::optional<uint64_t> Banks;
  std::optional<uint64_t> BankBytes;
  std::optional<uint64_t> BankPhases8Byte;
  std::optional<uint64_t> BankPhases16Byte;
  std::string BankSource;
};

class CapacityDatabase {
public:
  /// Parses a database. \p Origin names the input in error messages (a path).
  static Result<CapacityDatabase> parse(std::string_view Json,
                                        const std::string &Origin);
  static Result<CapacityDatabase> load(const std::string &Path);

  /// Adds \p Other's architectures; a field \p Other sets replaces this one's,
  /// a field it leaves out keeps this one's value. If \p Other was written with
  /// `"replace": true`, this database becomes \p Other instead. Returns an
  /// error message when the merged result is inconsistent (e.g. an "inherits"
  /// that names nothing); this database is then unchanged.
  std::optional<std::string> merge(const CapacityDatabase &Other);

  /// The entry for \p Arch (`sm_90a`); an `a`/`f` variant without its own entry
  /// gets its base architecture's. Null when the database does not know the
  /// architecture.
  const ArchCapacity *lookup(std::string_view Arch) const;

  std::vector<std::string> names() const;
  const std::string &origin() const { return Origin; }
  bool replaces() const { return Replace; }

private:
  std::map<std::string, ArchCapacity> Archs; ///< Resolved entries.
  std::shared_ptr<const struct RawEntries>
      Raw; ///< What the files said, for later merges.
  std::string Origin;
  bool Replace = false;
};

} // namespace tilefit

#endif
