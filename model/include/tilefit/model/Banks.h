//===- Banks.h - Shared-memory bank conflicts of one access -----*- C++ -*-===//
//
// How many wavefronts a warp's load or store of a `__shared__` variable takes,
// from the access's address as the front end wrote it down (SharedAccess in
// Facts.h), the block's shape and the architecture's bank model (the capacity
// database's shared_memory_banks).
//
// The model, per architecture: Banks banks of BankBytes bytes. A warp's
// request is served in phases by access width: one phase for BankBytes or
// less, two half-warps for 8 bytes, four quarter-warps for 16 (Phases8Byte,
// Phases16Byte). Lanes reading the same word are served together (broadcast).
// A phase costs as many wavefronts as the most distinct words one bank must
// deliver; the conflict degree is the most any phase costs.
//
// Lanes come from the block's shape: linear id = x + y*Dx + z*Dx*Dy, one warp
// per 32 consecutive ids. Every warp of the block is evaluated, for every
// value of the counters of the loops around the access; the worst is kept.
// Without a shape, the first warp alone, with threadIdx.x = lane (blockDim.x a
// multiple of 32), and the analysis says so.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_BANKS_H
#define TILEFIT_MODEL_BANKS_H

#include "tilefit/model/Capacity.h"
#include "tilefit/model/Facts.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {

/// The architecture's banks (capacity database, shared_memory_banks).
struct BankModel {
  unsigned Banks = 32;
  unsigned BankBytes = 4;
  unsigned Phases8Byte = 2;
  unsigned Phases16Byte = 4;
  unsigned WarpSize = 32;
  std::string Source;
  /// Phases of a warp's request of \p Width bytes per thread.
  unsigned phases(unsigned Width) const {
    return Width > 8 ? Phases16Byte : Width > BankBytes ? Phases8Byte : 1;
  }
};

/// The model of \p Arch, or nothing where the database does not give one.
std::optional<BankModel> bankModelOf(const ArchCapacity &Arch);

/// The threads of a block the analysis runs.
struct BlockShape {
  std::array<uint64_t, 3> Dim = {32, 1, 1};
  /// Dim is the block's shape; false: only the first warp is analysed, with
  /// threadIdx.x = lane and blockDim unknown.
  bool Known = false;
  /// Where it comes from: "launch", "__launch_bounds__", "configuration", or
  /// "assumed".
  std::string Source = "assumed";
};

/// One value of the evaluation: a thread, its block's shape, the counters.
struct LaneValues {
  std::array<int64_t, 3> Tid = {0, 0, 0};
  std::optional<std::array<uint64_t, 3>> BlockDim;
  const std::vector<int64_t> *Counters = nullptr;
};

/// \p E's value, or nothing where it divides by zero, shifts by a negative
/// amount or more than 63, overflows, or needs what \p V lacks.
std::optional<int64_t> evaluateIndex(const IndexExpr &E, const LaneValues &V);

/// The stable name of \p O in JSON (`thread_idx`, `add`), and back.
const char *indexOpName(IndexExpr::Op O);
std::optional<IndexExpr::Op> indexOpNamed(const std::string &Name);

/// Whether \p E uses the thread's index (ThreadIdx).
bool usesThreadIndex(const IndexExpr &E);

/// What one access costs a warp.
struct BankVerdict {
  /// Analysed: every lane's address was evaluated. Otherwise Why says why.
  bool Analysed = false;
  Reason Why;
  /// The conflict degree: the most wavefronts any phase of any warp takes
  /// (1: conflict-free; 0: no thread makes the access).
  unsigned Degree = 0;
  /// The worst request's wavefronts, phase by phase.
  std::vector<unsigned> Wavefronts;
  unsigned LanesPerPhase = 32;
  /// The worst request: the warp, the counters' values, the bank that
  /// delivers the most words, and how many lanes take part.
  uint64_t WorstWarp = 0;
  std::vector<int64_t> WorstCounters;
  unsigned WorstBank = 0;
  unsigned ActiveLanes = 0;
  /// Every analysed warp makes it in some iteration.
  bool EveryWarp = false;
  uint64_t Warps = 0;      ///< Warps analysed.
  uint64_t Requests = 0;   ///< Warp requests evaluated (warps x iterations).
  uint64_t Conflicted = 0; ///< Of those, the ones above one wavefront a phase.
  /// The innermost stride in bytes between consecutive lanes of the worst
  /// request, when all its lanes are equally spaced; for messages.
  std::optional<int64_t> LaneStride;
};

/// The most warp requests (warps x loop iterations) one access is evaluated
/// for; above it, the access is not analysed.
constexpr uint64_t MaxBankRequests = 1 << 16;

/// The banks of \p A, a load or store of a variable of \p Shape (outermost
/// first) and \p ElementBytes, run by the threads of \p Block.
BankVerdict analyzeAccess(const SharedAccess &A,
                          const std::vector<AccessLoop> &Loops,
                          const std::vector<uint64_t> &Shape,
                          uint64_t ElementBytes, const BlockShape &Block,
                          const BankModel &Model);

} // namespace tilefit

#endif
