//===- Scopes.cpp - Registers, constant memory and Tensor Memory ----------===//
//
// Observed with nvcc/ptxas 13.0.88 (whole-program mode unless said otherwise);
// the fixtures under tests/fixtures/scopes exercise each rule and the ptxas
// cross-check compiles them.
//
// Per-thread arrays (registers). A kernel's figure is the sum of sizeof over
// the local arrays (and objects holding arrays: wmma fragments, cute/cutlass
// arrays) declared in code that runs in the kernel and in each function it
// reaches, each declaration once, template instantiations each their own: the
// storage the source asks every thread to keep. ptxas keeps it in registers
// when it can (registers = ceil(bytes / 4)), splits arrays indexed only with
// constants into scalars, removes dead ones, and moves the rest to local
// memory; its own "Used N registers" depends on all that and is not this
// figure. What ptxas may use per thread:
//  - `__launch_bounds__(T, B)`: ptxas caps the registers so that B blocks of T
//  threads fit the
//    register file. The file is split into `sub_partitions` parts and each
//    warp's registers are allocated in `allocation_unit` steps, as
//    cuda_occupancy.h models it; the cap is the largest multiple of
//    allocation_unit / warp_size registers for which ceil(W x B / parts) warps
//    fit a part (W = warps per block), at most per_thread. Checked with
//    ptxas 13.0 on sm_80, sm_90 and sm_120 ("Used N registers" of a kernel that
//    wants 203 without bounds): (256, 2) -> 128, (192, 3) -> 96 (not 113: 18
//    warps need 5 per part, 16384 / 5 = 3276 -> 3072 per warp), (100, 6) -> 80,
//    (288, 3) -> 72, (160, 5) -> 72, (1024) -> 64, (1024, 2) -> 32 on sm_80/90.
//    The cap is an upper bound, not what ptxas uses: with (640) (cap 96) a
//    kernel that wants 98 gets 96, but the one that wants 203 got 32 on
//    sm_80/90 and 48 on sm_120 (ptxas chooses to spill more). When T (rounded
//    up to warps) x B exceeds the SM's threads, or B its resident blocks, ptxas
//    warns ".minnctapersm will be ignored" and caps by T alone: (682, 3) -> 80
//    on sm_80 and sm_120 (a kernel wanting 91), (1024, 2) -> 64 on sm_120 (1536
//    threads per SM), (128, 17) and (64, 33) -> no cap (91 used).
//  - else `-maxrregcount=N` (ptxas ignores it for kernels with launch bounds);
//  - else per_thread (255; ptxas never allocates more).
//
// Constant memory. nvcc emits every `__constant__` variable the unit defines,
// referenced or not (static ones too, and those of headers), but not
// `constexpr` variables, in the order of NVVM's walk that orders `__shared__`
// variables (global namespace in declaration order, variable template
// specializations where first referenced, namespaces last); ptxas places each
// at the next multiple of its alignment in the module's bank (.nv.constant3 in
// the cubin, "N bytes cmem[3]" in -Xptxas -v up to sm_89; sm_90 and later print
// no figure), whose size is the end of the last variable, and rejects a module
// above 0x10000 bytes, padding included: char[3], double[2], int[5], static
// float[7], short, then ns::char[1] take 75 bytes; char[65535] then int take
// 65540 ("File uses too much global constant data (0x10004 bytes, 0x10000
// max)"), char[65532] then int exactly 65536 (accepted). With -rdc, ptxas sorts
// the module's variables by alignment, largest first (stably), before placing
// them: the first unit takes 70 bytes, the second 65539 (rejected: "0x10003
// bytes"); `extern __constant__` declarations take nothing there. nvlink then
// checks the program's sum when it links.
//
// Tensor Memory. `tcgen05.alloc` allocates whole columns (all 128 lanes) on the
// SM; a count must be a power of 2 from 32 to 512 (ptxas rejects an immediate
// 1024: "range [32..512]", and 48: "must be power of 2"; a count in a register
// is not checked). A kernel's figure is the sum of its allocation sites, each
// once: more than the SM's columns and its last allocation blocks.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Scopes.h"

#include "tilefit/model/ByteUnits.h"
#include "tilefit/model/CallGraph.h"
#include "tilefit/model/Layout.h"

#include <algorithm>

namespace tilefit {
namespace {

uint64_t divideRoundUp(uint64_t X, uint64_t Y) { return (X + Y - 1) / Y; }

std::string boundsText(const LaunchBounds &B) {
  std::string S = "__launch_bounds__(" + std::to_string(*B.MaxThreads);
  if (B.MinBlocks)
    S += ", " + std::to_string(*B.MinBlocks);
  return S + ")";
}

} // namespace

Result<uint64_t> launchBoundsRegisterLimit(const ArchCapacity &A,
                                           uint64_t MaxThreads,
                                           uint64_t MinBlocks,
                                           bool *MinimumIgnored) {
  if (MinimumIgnored)
    *MinimumIgnored = false;
  if (!A.RegistersPerSm || !A.RegistersPerThread || !A.RegisterAllocUnit ||
      !A.RegisterSubPartitions || !A.WarpSize || !*A.WarpSize ||
      !*A.RegisterAllocUnit || !*A.RegisterSubPartitions)
    return ErrorMessage{
        "the capacity database has no register-file figures for " + A.Name};
  if (!A.ThreadsPerSm || !A.BlocksPerSm)
    return ErrorMessage{"the capacity database has no thread limits for " +
                        A.Name};
  if (MaxThreads == 0)
    return ErrorMessage{"a block of 0 threads"};
  if (A.ThreadsPerBlock && MaxThreads > *A.ThreadsPerBlock)
    return ErrorMessage{"a block of " + std::to_string(MaxThreads) +
                        " threads is more than the " +
                        std::to_string(*A.ThreadsPerBlock) +
                        " a block can have on " + A.Name};
  uint64_t Blocks = std::max<uint64_t>(MinBlocks, 1);
  const uint64_t Warps = divideRoundUp(MaxThreads, *A.WarpSize);
  if (Warps * *A.WarpSize > *A.ThreadsPerSm)
    return ErrorMessage{"a block of " + std::to_string(MaxThreads) +
                        " threads is more than the " +
                        std::to_string(*A.ThreadsPerSm) +
                        " threads an SM holds on " + A.Name};
  // ptxas ignores a minimum the SM cannot hold (".minnctapersm will be
  // ignored", counting whole warps) and caps by the block size alone.
  // MaxThreads is at most the SM's threads here, so the product cannot overflow
  // unless MinBlocks is absurd.
  auto Threads = checkedMul(Warps * *A.WarpSize, Blocks);
  if (!Threads || *Threads > *A.ThreadsPerSm || Blocks > *A.BlocksPerSm) {
    Blocks = 1;
    if (MinimumIgnored)
      *MinimumIgnored = true;
  }
  const uint64_t Parts = *A.RegisterSubPartitions;
  const uint64_t WarpsPerPart = divideRoundUp(Warps * Blocks, Parts);
  const uint64_t PerWarp = (*A.RegistersPerSm / Parts / WarpsPerPart) /
                           *A.RegisterAllocUnit * *A.RegisterAllocUnit;
  return std::min(*A.RegistersPerThread, PerWarp / *A.WarpSize);
}

RegisterTileReport registerTiles(const TranslationUnitFacts &TU,
                                 const KernelFacts &K, const ArchCapacity *Arch,
                                 std::optional<uint64_t> MaxRegisters) {
  RegisterTileReport R;
  std::optional<uint64_t> Sum = 0;
  // A body the front end sliced (BodySlicing) lacks the arrays of locals it
  // did not instantiate: the total is then unknown, and why is said.
  if (K.Function && *K.Function < TU.Functions.size())
    for (size_t F : functionsReachedFrom(TU, *K.Function)) {
      const FunctionFacts &Fn = TU.Functions[F];
      if (Fn.UninstantiatedStatements == 0)
        continue;
      const std::string Short = Fn.Name.substr(0, Fn.Name.find('<'));
      R.UnknownReason =
          std::to_string(Fn.UninstantiatedStatements) + " statement" +
          (Fn.UninstantiatedStatements == 1 ? "" : "s") + " of '" + Short +
          "' that cannot change its shared memory " +
          (Fn.UninstantiatedStatements == 1 ? "was" : "were") +
          " not instantiated and may hold per-thread arrays "
          "(--no-body-slicing instantiates them)";
      Sum.reset();
      break;
    }
  for (size_t I : K.LocalArrays) {
    const SharedVar &V = TU.LocalArrays[I];
    R.Arrays.push_back(V);
    if (!Sum)
      continue;
    if (!V.Bytes) {
      R.UnknownReason = "the size of '" + V.Name + "'" +
                        (V.Function.empty() ? "" : " in '" + V.Function + "'") +
                        " is unknown: " + describe(V.UnknownReason);
      Sum.reset();
    } else if (!(Sum = checkedAdd(*Sum, *V.Bytes))) {
      R.UnknownReason = "the total overflows 64 bits";
    }
  }
  R.BytesPerThread = Sum;
  if (Sum)
    R.RegistersPerThread =
        *Sum / 4 + (*Sum % 4 != 0); // 32-bit registers, no overflow

  for (const LaunchSite &L : K.Launches)
    if (L.BlockThreads &&
        (!R.BlockThreads || *L.BlockThreads > *R.BlockThreads))
      R.BlockThreads = L.BlockThreads;
  if (!R.BlockThreads && K.Bounds && K.Bounds->MaxThreads)
    R.BlockThreads = K.Bounds->MaxThreads;
  if (R.BytesPerThread && R.BlockThreads)
    R.BytesPerBlock = checkedMul(*R.BytesPerThread, *R.BlockThreads);

  if (!Arch)
    return R;
  if (K.Bounds && K.Bounds->MaxThreads) {
    bool Ignored = false;
    auto L =
        launchBoundsRegisterLimit(*Arch, *K.Bounds->MaxThreads,
                                  K.Bounds->MinBlocks.value_or(1), &Ignored);
    if (L) {
      R.Limit = *L;
      R.LimitBasis = boundsText(*K.Bounds);
      if (Ignored)
        R.LimitNote =
            std::to_string(*K.Bounds->MinBlocks) + " blocks of " +
            std::to_string(*K.Bounds->MaxThreads) +
            " threads do not fit an SM on " + Arch->Name +
            ": ptxas ignores the minimum and caps by the block size alone";
      return R;
    }
    R.LimitNote = boundsText(*K.Bounds) +
                  " gives no register budget tilefit can compute: " + L.error();
  } else if (MaxRegisters) {
    R.Limit = Arch->RegistersPerThread
                  ? std::min(*MaxRegisters, *Arch->RegistersPerThread)
                  : *MaxRegisters;
    R.LimitBasis = "-maxrregcount=" + std::to_string(*MaxRegisters);
    return R;
  }
  if (Arch->RegistersPerThread) {
    R.Limit = Arch->RegistersPerThread;
    R.LimitBasis = "registers.per_thread";
  }
  return R;
}

std::optional<TensorMemoryReport> tensorMemory(const KernelFacts &K,
                                               const ArchCapacity *Arch) {
  if (Arch && Arch->TensorMemoryColumns && *Arch->TensorMemoryColumns == 0)
    return std::nullopt;
  TensorMemoryReport R;
  if (Arch)
    R.Capacity = Arch->TensorMemoryColumns;
  R.Allocations = K.TmemAllocations;
  std::optional<uint64_t> Sum = 0;
  for (const TmemAllocation &A : K.TmemAllocations) {
    if (!Sum)
      break;
    if (!A.Columns) {
      R.UnknownReason = "the column count of the " + A.Form + " at " +
                        A.Loc.File + ":" + std::to_string(A.Loc.Line) +
                        " is unknown: " + describe(A.UnknownReason);
      Sum.reset();
    } else if (!(Sum = checkedAdd(*Sum, *A.Columns))) {
      R.UnknownReason = "the total overflows 64 bits";
    }
  }
  R.Columns = Sum;
  return R;
}

ConstantMemoryReport constantMemory(const TranslationUnitFacts &TU,
                                    const ArchCapacity *Arch) {
  ConstantMemoryReport R;
  R.Relocatable = TU.RelocatableDeviceCode;
  if (Arch)
    R.Limit = Arch->ConstantBytes;
  std::vector<size_t> Order =
      emissionOrder(TU.ConstantVars, TU.ConstantEmission);
  if (TU.RelocatableDeviceCode)
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      return TU.ConstantVars[A].Align > TU.ConstantVars[B].Align;
    });
  std::optional<uint64_t> End = 0;
  for (size_t V : Order) {
    const SharedVar &Var = TU.ConstantVars[V];
    AllocationReport A;
    A.Var = Var;
    if (End) {
      if (!Var.Bytes) {
        R.UnknownReason = "the size of '" + Var.QualifiedName +
                          "' is unknown: " + describe(Var.UnknownReason);
        End.reset();
      } else if (auto Start = alignUp(*End, std::max<uint64_t>(Var.Align, 1))) {
        A.Offset = *Start;
        if (!(End = checkedAdd(*Start, *Var.Bytes)))
          R.UnknownReason = "the total overflows 64 bits";
      } else {
        End.reset();
        R.UnknownReason = "the total overflows 64 bits";
      }
    }
    R.Variables.push_back(std::move(A));
  }
  R.Bytes = End;
  return R;
}

bool validTmemAllocation(uint64_t Columns, uint64_t Min, uint64_t Max) {
  return Columns >= Min && Columns <= Max && (Columns & (Columns - 1)) == 0;
}

} // namespace tilefit
