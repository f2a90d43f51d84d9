//===- Calc.h - The footprint calculator (tilefit calc) ---------*- C++ -*-===//
//
// What a tile of some element type takes on chip: elements, bytes per copy,
// bytes for all its versions (buffers), whether that fits a scope's capacity on
// an architecture, and for tiles spread over threads the 32-bit registers each
// thread holds. Every product is overflow-checked: a tile too big for 64 bits
// is an error, never a wrong number. Capacities come from the capacity database
// (data/capacity.json) or from the caller.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_CALC_H
#define TILEFIT_MODEL_CALC_H

#include "tilefit/model/Capacity.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Result.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// An element type. Sub-byte types are packed by bits (int4 and float4_e2m1fn:
/// 2 per byte; float6_*: 4 per 3 bytes); the `_unpacked` forms hold one value
/// per byte, as CUDA's scalar `__nv_fp4_e2m1` and `__nv_fp6_*` types do (sizeof
/// 1).
struct ElementType {
  std::string Name; ///< `float32`
  std::vector<std::string>
      CudaNames; ///< `float`; empty when CUDA has no such scalar type.
  /// Other spellings people type: PyTorch's, CUTLASS's, the short ones (`bf16`,
  /// `fp16`, `e4m3`, `nvfp4`, `cutlass::half_t`, `torch.bfloat16`).
  std::vector<std::string> Aliases;
  unsigned Bits = 0; ///< Bits each element takes in memory.
  unsigned ValueBits =
      0; ///< Bits of the value's format (4 for both fp4 forms).
  std::string Note;

  bool packed() const { return Bits < 8; }
  /// `2 per byte`, `4 per 3 bytes`, or `1 per byte` / `2 bytes each` for
  /// whole-byte types.
  std::string packing() const;
};

/// Every element type, in the order `--list-dtypes` prints them.
const std::vector<ElementType> &elementTypes();
/// By short name (`float16`), CUDA spelling (`__half`) or alias (`fp16`,
/// `torch.float16`, `cutlass::half_t`), case aside; null when unknown.
const ElementType *findElementType(std::string_view Name);

/// Where the tile lives, which decides what its capacity is.
enum class CalcScope { Shared, Registers, Tmem };

struct ScopeInfo {
  CalcScope Scope;
  std::string Name;  ///< `shared`
  std::string Holds; ///< What is compared with the capacity.
  std::string
      Capacity; ///< What the capacity is, and the database fields it reads.
};

const std::vector<ScopeInfo> &calcScopes();
std::optional<CalcScope> parseCalcScope(std::string_view Name);
const ScopeInfo &scopeInfo(CalcScope S);

/// Tensor Memory's shape per column: 128 lanes of 32-bit cells (the tcgen05
/// layout); the number of columns is the database's `tensor_memory.columns`.
inline constexpr uint64_t TmemLanes = 128;
inline constexpr uint64_t TmemCellBytes = 4;

/// A whole number from the command line (`128`); \p What names it in the
/// message (`tile dimension`, `--versions`). Negative numbers, other text and
/// values above 2^64 - 1 are errors; 0 is accepted here (calculate() says where
/// it is not allowed).
Result<uint64_t> parseCalcNumber(std::string_view What, std::string_view Text);
/// A byte count as people type it: `232448`, `228KiB`, `228 KiB`, `227K`,
/// `1.5MiB`, `64KB` (K, KB and KiB are all 1024 bytes, as CUDA's documentation
/// counts them; M and G likewise).
Result<uint64_t> parseCalcBytes(std::string_view What, std::string_view Text);

struct CalcRequest {
  std::vector<uint64_t>
      Tile;              ///< Dimensions; their product is the element count.
  std::string DType;     ///< Short name or CUDA spelling.
  uint64_t Versions = 1; ///< Copies (double buffering: 2).
  std::optional<uint64_t> Threads;
  CalcScope Scope = CalcScope::Shared;
  std::string Arch;                 ///< Empty: no architecture.
  std::optional<uint64_t> Capacity; ///< Bytes, instead of an architecture's.
};

/// The verdict against a capacity.
struct CalcFit {
  std::string Arch; ///< Empty when the capacity was given.
  std::string
      Field; ///< The database field(s) it comes from; `--capacity` when given.
  std::string Basis;     ///< `per block with opt-in`, `per thread`, `per SM`.
  uint64_t Capacity = 0; ///< Bytes.
  uint64_t Used = 0; ///< Bytes compared: the total, or for registers a thread's
                     /// < registers x 4.
  bool Fits = false;
  uint64_t Headroom =
      0;             ///< Capacity - Used when it fits (and nothing else fails).
  uint64_t Over = 0; ///< Used - Capacity when that is what fails.
  std::vector<std::string>
      Problems; ///< Other limits that fail (a block's registers).
  std::optional<uint64_t> RegisterLimit; ///< registers: per thread.
  std::optional<uint64_t>
      RegistersPerBlock; ///< registers: this tile's, for the block.
  std::optional<uint64_t>
      RegisterLimitPerBlock;           ///< registers: registers.per_block.
  std::optional<uint64_t> TmemColumns; ///< tmem: columns this tile needs.
  std::optional<uint64_t>
      TmemColumnsAvailable; ///< tmem: tensor_memory.columns.
};

struct CalcResult {
  std::vector<uint64_t> Tile;
  const ElementType *Type = nullptr;
  uint64_t Versions = 1;
  CalcScope Scope = CalcScope::Shared;
  uint64_t Elements = 0;
  uint64_t BytesPerCopy = 0; ///< ceil(elements x bits / 8)
  uint64_t TotalBytes = 0;   ///< BytesPerCopy x Versions
  std::optional<uint64_t> Threads;
  std::optional<uint64_t> BytesPerThread; ///< ceil(total / threads)
  std::optional<uint64_t>
      RegistersPerThread;     ///< ceil(bytes per thread / 4), the arrays alone
  std::optional<CalcFit> Fit; ///< When an architecture or a capacity was given.
  std::vector<std::string> Notes;
  /// Several operands (calculateSum): each figured alone, in order. The
  /// figures above are then their sums (BytesPerCopy the total, Versions 1),
  /// and Tile and Type are empty.
  std::vector<CalcResult> Operands;
};

/// The figures for \p R. \p Db is needed only with an architecture. Errors:
/// unknown element type (the message lists the known ones), a dimension,
/// versions or threads of 0, no dimensions, an overflow, an unknown
/// architecture (with the ones the database knows), a scope the architecture
/// lacks or the database does not know, registers without threads, both an
/// architecture and a capacity.
Result<CalcResult> calculate(const CalcRequest &R, const CapacityDatabase *Db);

/// Several operands summed, as the A and B tiles of one pipeline stage take
/// shared memory together: each operand's Tile, DType and Versions are its
/// own; the threads, scope, architecture and capacity are \p Common's, and the
/// sum is checked against the capacity. One operand is calculate() of it.
/// Errors as calculate()'s, an operand's prefixed with `operand N: `.
Result<CalcResult> calculateSum(const std::vector<CalcRequest> &Operands,
                                const CalcRequest &Common,
                                const CapacityDatabase *Db);

/// `tilefit calc --occupancy`: what a block of \p Threads threads, \p
/// Registers registers each (0: unknown, they do not limit) and \p SharedBytes
/// of shared memory (static and dynamic together, opted in where above the
/// default limit) leaves resident on an architecture: computeOccupancy's
/// figures, as cuda_occupancy.h computes them.
struct CalcOccupancy {
  std::string Arch;
  Occupancy Resident;
  uint64_t WarpsPerSm = 0;    ///< Resident blocks x warps per block.
  uint64_t MaxWarpsPerSm = 0; ///< The architecture's.
};
Result<CalcOccupancy> calculateOccupancy(uint64_t Threads, uint64_t Registers,
                                         uint64_t SharedBytes,
                                         const std::string &Arch,
                                         const CapacityDatabase &Db);

/// `128 x 64`.
std::string tileText(const std::vector<uint64_t> &Tile);

} // namespace tilefit

#endif
