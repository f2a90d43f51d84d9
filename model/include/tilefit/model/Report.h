//===- Report.h - What tilefit reports, for every reporter ------*- C++ -*-===//
//
// The model's output. Reporters (text, JSON) render this and nothing else: they
// never see Clang.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_REPORT_H
#define TILEFIT_MODEL_REPORT_H

#include "tilefit/model/Banks.h"
#include "tilefit/model/Facts.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {

/// The capacity database's limits for one architecture, as reported with each
/// kernel (bytes).
struct Limits {
  std::optional<uint64_t> StaticMax;
  std::optional<uint64_t> BlockDefaultMax;
  std::optional<uint64_t> BlockOptinMax;
  std::optional<uint64_t> SmMax;
  std::optional<uint64_t> ReservedPerBlock;
};

/// One static `__shared__` variable of a kernel, placed.
struct AllocationReport {
  SharedVar Var;
  std::optional<uint64_t> Offset; ///< Unset when an earlier size is unknown.
  bool SharedWithOtherKernels =
      false; ///< Another kernel of the unit reaches it too.
  bool AtModuleScope =
      false; ///< ptxas places it after the kernel's own variables.
};

/// A launch of the kernel, with what it asks for.
struct LaunchReport {
  SourcePos Loc;
  std::optional<uint64_t>
      DynamicBytes; ///< Unset when not a compile-time constant.
  std::string UnknownReason;
  std::optional<uint64_t> BlockThreads;
  /// Static + dynamic shared memory per block for this launch; unset when
  /// either is unknown.
  std::optional<uint64_t> TotalBytes;
  /// "comment" or "configuration" when the user stated DynamicBytes
  /// (LaunchSite::StatedBy); "" when tilefit computed it.
  std::string StatedBy;
  Reason UnknownReasonKind; ///< What UnknownReason words (Reasons.def).
  WrittenLaunch Written;    ///< LaunchSite::Written.
};

/// Resident blocks per SM for the kernel's largest launch.
struct OccupancyReport {
  std::optional<uint64_t> BlockThreads;
  std::optional<uint64_t> BlocksPerSm;
  std::string LimitedBy; ///< "shared memory", "warps and blocks", ...
  std::optional<uint64_t>
      SmemPerBlock; ///< Allocated per block, driver reserve included.
  std::optional<uint64_t> SmemPerSmUsed; ///< SmemPerBlock x BlocksPerSm.
  std::optional<uint64_t>
      Registers; ///< Per thread, when given (--registers, -maxrregcount).
  std::string UnknownReason; ///< Why BlocksPerSm is unknown.
};

/// What a kernel keeps per thread in local arrays and array-holding objects
/// (wmma fragments): registers, or local memory when they do not fit. The
/// arrays' own footprint, before the registers the compiler needs for
/// everything else; not ptxas's register count.
struct RegisterTileReport {
  std::vector<SharedVar> Arrays; ///< In the order the kernel reaches them.
  std::optional<uint64_t>
      BytesPerThread; ///< Their sum; unset when one size is unknown.
  std::optional<uint64_t>
      RegistersPerThread;    ///< ceil(BytesPerThread / 4) 32-bit registers.
  std::string UnknownReason; ///< Why BytesPerThread is unknown.
  /// Threads per block: the largest constant block size of its launches, else
  /// __launch_bounds__'s maximum; unset when neither is known.
  std::optional<uint64_t> BlockThreads;
  std::optional<uint64_t> BytesPerBlock; ///< BytesPerThread x BlockThreads.
  /// The registers ptxas may give each thread: __launch_bounds__'s budget, else
  /// -maxrregcount, else the architecture's per-thread maximum; unset when
  /// unknown.
  std::optional<uint64_t> Limit;
  std::string LimitBasis; ///< `__launch_bounds__(192, 3)`, `-maxrregcount=64`,
                          ///< `registers.per_thread`.
  /// What qualifies the limit: why __launch_bounds__ gives no budget tilefit
  /// can compute (Limit is then the per-thread maximum), or that ptxas ignores
  /// its minimum; "" otherwise.
  std::string LimitNote;
};

/// Tensor Memory columns a kernel allocates (sm_100 family).
struct TensorMemoryReport {
  std::optional<uint64_t>
      Columns; ///< Their sum; unset when one count is unknown.
  std::string UnknownReason;
  std::optional<uint64_t> Capacity; ///< Columns per SM (tensor_memory.columns).
  std::vector<TmemAllocation>
      Allocations; ///< In the order the kernel reaches them.
};

/// The `__constant__` data of one translation unit: one module's constant bank,
/// which ptxas limits per module (and nvlink per program, with -rdc).
struct ConstantMemoryReport {
  std::optional<uint64_t>
      Bytes; ///< The end of the last variable; unset if unknown.
  std::string UnknownReason;
  std::optional<uint64_t> Limit; ///< constant_memory.bytes.
  bool Relocatable =
      false; ///< -rdc: the program's total is known at link time.
  std::vector<AllocationReport>
      Variables; ///< In layout (emission) order, with offsets.
};

/// One load or store of a `__shared__` variable the kernel makes, with its
/// bank conflicts (model/Banks.h).
struct BankAccessReport {
  SharedAccess Access; ///< As the front end recorded it.
  /// The loops of its function (FunctionFacts::Loops): Access's Counter nodes
  /// index them.
  std::vector<AccessLoop> Loops;
  SharedVar Var;        ///< The variable it reads or writes.
  std::string Function; ///< The function it is in.
  BlockShape Block;     ///< The threads it was analysed for.
  BankVerdict Verdict;
  /// The counters of the loops around it, by name, at the worst request.
  std::vector<std::pair<std::string, int64_t>> WorstCounters;
};

/// One kernel (instantiation) on one architecture.
struct KernelReport {
  std::string Name;
  std::string Mangled;
  /// Why Mangled may not be ptxas's name (KernelFacts::NameDiffers); "" when
  /// it is.
  std::string NameDiffers;
  SourcePos Loc;
  std::optional<SourcePos> InstantiatedAt;
  std::string TranslationUnit; ///< The source file that was parsed.
  std::string Arch;
  std::string ParsedAs; ///< Differs from Arch when Clang does not know Arch.
  bool Jit = false;     ///< A PTX-only target of the build.
  std::optional<uint64_t>
      StaticBytes; ///< "bytes smem" as ptxas prints it; unset when unknown.
  /// StaticBytes is the device-linked program's figure (-rdc: nvlink lays the
  /// kernel out; ptxas -v prints only a per-object estimate), not ptxas's.
  bool LinkedFigure = false;
  std::string UnknownReason;
  bool Overflows = false; ///< Unknown because the sum exceeds 64 bits.
  std::optional<uint64_t>
      RoundedTo;                ///< The total was rounded up to this multiple.
  bool DynamicDeclared = false; ///< It reaches an `extern __shared__` array.
  std::vector<SharedVar> DynamicVars;
  std::vector<LaunchReport> Launches;    ///< In source order.
  std::vector<AttributeCall> Attributes; ///< Its cudaFuncSetAttribute calls.
  std::optional<uint64_t>
      OptInBytes; ///< cudaFuncAttributeMaxDynamicSharedMemorySize, if known.
  std::optional<LaunchBounds> Bounds;
  OccupancyReport Occupancy;
  /// The launch asking for the most shared memory (by TotalBytes), if any is
  /// known.
  std::optional<size_t> WorstLaunch;
  std::vector<AllocationReport> Allocations; ///< In layout order.
  std::vector<SharedVar> Unreferenced; ///< Declared, never used: not allocated.
  Limits Limit;
  RegisterTileReport Registers;
  /// Unset on architectures without Tensor Memory.
  std::optional<TensorMemoryReport> TensorMemory;
  /// Its loads and stores of `__shared__` variables, in the order it reaches
  /// them, each with its bank conflicts; empty where the database has no bank
  /// model for the architecture.
  std::vector<BankAccessReport> BankAccesses;
  /// The most severe finding about this kernel on this architecture, if any.
  std::optional<Severity> Worst;
  /// Its unit had errors that cannot have changed this kernel's figures: they
  /// stand.
  bool UnitHasErrors = false;
};

/// One translation unit parsed for one architecture.
struct UnitReport {
  std::string File;
  std::string Arch;
  std::string ParsedAs;
  bool Jit = false;
  bool Ok = true; ///< Parsed without errors.
  /// Parsed with errors and analysed as Clang built it: the kernels the errors
  /// touch have no figures (KernelReport::UnknownReason), the others are exact.
  bool Partial = false;
  bool ParseStopped =
      false; ///< An error stopped the parse: kernels after it unseen.
  /// Its parse errors do not decide the exit status (--allow-parse-errors,
  /// AllowParseErrors).
  bool ErrorsAllowed = false;
  std::vector<Diagnostic>
      Messages; ///< Problems with the unit itself (parse errors).
  std::vector<SourceFixup>
      Fixups; ///< Constructs nvcc accepts that Clang was given rewritten.
  std::optional<ConstantMemoryReport>
      ConstantMemory; ///< Unset when the unit failed.
  /// What body slicing did to the unit (BodySlicing in Facts.h).
  BodySlicing Slicing;
};

struct Report {
  std::vector<UnitReport> Units;
  std::vector<KernelReport> Kernels;
  std::vector<Diagnostic> Diagnostics;
  /// Problems that belong to no translation unit (a bad compilation database
  /// entry).
  std::vector<Diagnostic> ToolMessages;
  /// The project's source folder, for relative paths in SARIF and Markdown (""
  /// if unknown).
  std::string SourceRoot;
};

/// Whether \p K's blocks per SM are only what shared memory, warps and the
/// block limit allow: nothing says how many registers a thread uses (no
/// --registers or -maxrregcount), and no __launch_bounds__ minimum at or above
/// that figure makes ptxas keep its registers to it. ptxas's register count may
/// then allow fewer blocks, so the figure is a bound, not the occupancy.
bool occupancyIsUpperBound(const KernelReport &K);

} // namespace tilefit

#endif
