//===- Analysis.cpp - Figures and findings for one translation unit -------===//
#include "tilefit/model/Analysis.h"

#include "tilefit/model/Checks.h"
#include "tilefit/model/GlobList.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Scopes.h"
#include "tilefit/model/Units.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

namespace tilefit {
namespace {

std::string bytesPhrase(uint64_t Bytes) {
  std::string S = std::to_string(Bytes) + (Bytes == 1 ? " byte" : " bytes");
  if (Bytes >= 1024)
    S += " (" + humanBytes(Bytes) + ")";
  return S;
}

std::string shapeSuffix(const SharedVar &V) {
  return V.Type.empty() ? "" : " (" + V.Type + ")";
}

/// One note per allocation, largest first; \p Advice is appended to the largest one's note.
std::vector<Note> allocationNotes(const KernelReport &K, const std::string &Advice) {
  std::vector<const AllocationReport *> Sorted;
  for (const AllocationReport &A : K.Allocations)
    Sorted.push_back(&A);
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const AllocationReport *L, const AllocationReport *R) {
                     return L->Var.Bytes.value_or(0) > R->Var.Bytes.value_or(0);
                   });
  std::vector<Note> Notes;
  for (const AllocationReport *A : Sorted) {
    std::string Msg = "'" + A->Var.Name + "' takes " +
                      (A->Var.Bytes ? bytesPhrase(*A->Var.Bytes) : std::string("an unknown size")) +
                      shapeSuffix(A->Var);
    if (A->Offset)
      Msg += " at offset " + std::to_string(*A->Offset);
    if (A->SharedWithOtherKernels)
      Msg += ", shared with other kernels of the translation unit";
    if (Notes.empty() && !Advice.empty())
      Msg += "; " + Advice;
    Notes.push_back({Msg, A->Var.Loc});
  }
  return Notes;
}

/// What would fit: for each array extent written as one name (a template parameter, a
/// constant, a macro), the largest value that meets a goal, found by laying the kernel out
/// again with that extent smaller; and the most dynamic memory that meets it.
class FitAdvisor {
public:
  FitAdvisor(const TranslationUnitFacts &TU, const UnitLayout &Layout, size_t Kernel)
      : TU(TU), Layout(Layout), Kernel(Kernel) {}

  /// One note per changeable extent whose smaller value makes \p Fits(static total) true.
  std::vector<Note> extentNotes(const std::function<bool(uint64_t)> &Fits,
                                const std::string &Goal) const {
    std::vector<Note> Notes;
    KernelLayout Now = Layout.layout(Kernel);
    for (const Placement &P : Now.Placed) {
      const SharedVar &V = TU.Vars[P.Var];
      if (!V.Bytes)
        continue;
      for (size_t D = 0; D < V.Shape.size() && D < V.ExtentNames.size(); ++D) {
        const uint64_t Extent = V.Shape[D];
        if (V.ExtentNames[D].empty() || Extent < 2 || *V.Bytes % Extent)
          continue;
        const uint64_t Unit = *V.Bytes / Extent;
        auto TotalWith = [&](uint64_t X) { return Layout.layoutWith(Kernel, P.Var, Unit * X).Total; };
        auto Ok = [&](uint64_t X) {
          auto T = TotalWith(X);
          return T && Fits(*T);
        };
        if (!Ok(1))
          continue;
        uint64_t Lo = 1, Hi = Extent - 1; // the largest X in [Lo, Hi] with Ok(X)
        while (Lo < Hi) {
          uint64_t Mid = Lo + (Hi - Lo + 1) / 2;
          if (Ok(Mid))
            Lo = Mid;
          else
            Hi = Mid - 1;
        }
        Notes.push_back({"with " + V.ExtentNames[D] + " = " + std::to_string(Lo) + " (it is " +
                             std::to_string(Extent) + "), '" + V.Name + "' takes " +
                             bytesPhrase(Unit * Lo) + " and the kernel " + Goal,
                         V.Loc});
      }
    }
    return Notes;
  }

  /// The largest value in [0, Max] for which \p Ok holds (Ok is monotone, true at 0).
  static std::optional<uint64_t> largest(uint64_t Max, const std::function<bool(uint64_t)> &Ok) {
    if (!Ok(0))
      return std::nullopt;
    uint64_t Lo = 0, Hi = Max;
    while (Lo < Hi) {
      uint64_t Mid = Lo + (Hi - Lo + 1) / 2;
      if (Ok(Mid))
        Lo = Mid;
      else
        Hi = Mid - 1;
    }
    return Lo;
  }

private:
  const TranslationUnitFacts &TU;
  const UnitLayout &Layout;
  size_t Kernel;
};

void addInstantiationNote(const KernelReport &K, Diagnostic &D) {
  if (K.InstantiatedAt)
    D.Notes.push_back({"in instantiation of kernel '" + K.Name + "' requested here",
                       *K.InstantiatedAt});
}

Diagnostic makeDiagnostic(CheckId Id, const KernelReport &K, std::string Message) {
  const CheckInfo &C = checkInfo(Id);
  Diagnostic D;
  D.Level = C.DefaultSeverity;
  D.Check = std::string(C.Name);
  D.Message = std::move(Message);
  D.Loc = K.Loc;
  D.Arch = K.Arch;
  D.TranslationUnit = K.TranslationUnit;
  D.Kernel = K.Name;
  if (K.StaticBytes)
    D.Figures.push_back({"static_smem_bytes", *K.StaticBytes});
  if (K.WorstLaunch)
    D.Figures.push_back({"dynamic_smem_bytes", *K.Launches[*K.WorstLaunch].DynamicBytes});
  if (K.Limit.BlockOptinMax)
    D.Figures.push_back({"block_optin_max", *K.Limit.BlockOptinMax});
  if (K.Occupancy.BlocksPerSm)
    D.Figures.push_back({"blocks_per_sm", *K.Occupancy.BlocksPerSm});
  return D;
}

/// Notes for the launch that asks the most and for the `extern __shared__` arrays it sizes.
void addLaunchNotes(const KernelReport &K, Diagnostic &D) {
  if (!K.WorstLaunch)
    return;
  const LaunchReport &L = K.Launches[*K.WorstLaunch];
  if (L.DynamicBytes && *L.DynamicBytes > 0) {
    D.Notes.push_back({"launched here with " + bytesPhrase(*L.DynamicBytes) +
                           " of dynamic shared memory",
                       L.Loc});
    for (const SharedVar &V : K.DynamicVars)
      D.Notes.push_back({"'" + V.Name + "' is dynamic shared memory, sized at launch", V.Loc});
  }
}

/// "53248 bytes (52 KiB)", or "… (1024 static + 52224 dynamic at launch)" with a launch.
std::string totalPhrase(const KernelReport &K, uint64_t Total) {
  std::string S = bytesPhrase(Total);
  if (K.WorstLaunch && K.StaticBytes && Total > *K.StaticBytes)
    S += " (" + std::to_string(*K.StaticBytes) + " static + " +
         std::to_string(Total - *K.StaticBytes) + " dynamic at launch)";
  return S;
}

OccupancyInput occupancyInput(const KernelReport &K, uint64_t Threads,
                              std::optional<uint64_t> Registers, std::optional<int> Carveout) {
  OccupancyInput In;
  In.BlockThreads = Threads;
  In.Registers = Registers.value_or(0);
  In.StaticBytes = K.StaticBytes.value_or(0);
  In.DynamicBytes = K.WorstLaunch ? *K.Launches[*K.WorstLaunch].DynamicBytes : 0;
  In.OptInBytes = K.OptInBytes;
  In.CarveoutPercent = Carveout;
  return In;
}

/// The kernel's occupancy at its largest launch (or, without launches, with no dynamic memory),
/// with the block size of that launch, another constant one, or __launch_bounds__.
OccupancyReport occupancyOf(const KernelReport &K, const ArchCapacity *Arch,
                            std::optional<uint64_t> Registers, std::optional<int> Carveout) {
  OccupancyReport R;
  R.Registers = Registers;
  if (K.WorstLaunch)
    R.BlockThreads = K.Launches[*K.WorstLaunch].BlockThreads;
  for (const LaunchReport &L : K.Launches)
    if (!R.BlockThreads && L.BlockThreads)
      R.BlockThreads = L.BlockThreads;
  if (!R.BlockThreads && K.Bounds && K.Bounds->MaxThreads)
    R.BlockThreads = K.Bounds->MaxThreads;
  if (!K.StaticBytes) {
    R.UnknownReason = "the static shared memory is unknown";
    return R;
  }
  if (!R.BlockThreads) {
    R.UnknownReason = "no launch with a constant block size and no __launch_bounds__";
    return R;
  }
  if (!Arch) {
    R.UnknownReason = "the architecture is not in the capacity database";
    return R;
  }
  auto O = computeOccupancy(*Arch, occupancyInput(K, *R.BlockThreads, Registers, Carveout));
  if (!O) {
    R.UnknownReason = O.error();
    return R;
  }
  R.BlocksPerSm = O->BlocksPerSm;
  R.LimitedBy = limitNames(O->LimitedBy);
  R.SmemPerBlock = O->SmemPerBlock;
  R.SmemPerSmUsed = O->SmemPerBlock * O->BlocksPerSm;
  return R;
}

/// What the checks of one kernel need besides its report.
struct KernelContext {
  const FitAdvisor &Fit;
  const ArchCapacity *Arch;
  std::optional<uint64_t> Registers;
  std::optional<int> Carveout;
};

/// Launches asking for more dynamic shared memory than the kernel is allowed, and opt-ins
/// above what the architecture can give.
void checkOptIn(KernelReport &K, std::vector<Diagnostic> &Out,
                const std::function<void(Diagnostic)> &Record) {
  if (!K.StaticBytes || !K.Limit.BlockDefaultMax || !K.Limit.BlockOptinMax)
    return;
  const uint64_t Static = *K.StaticBytes;
  const AttributeCall *OptIn = nullptr;
  for (const AttributeCall &A : K.Attributes)
    if (A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize)
      OptIn = &A;
  const uint64_t Room = *K.Limit.BlockOptinMax > Static ? *K.Limit.BlockOptinMax - Static : 0;
  if (OptIn && OptIn->Value && static_cast<uint64_t>(*OptIn->Value) > Room) {
    Diagnostic D = makeDiagnostic(
        CheckId::OptIn, K,
        "cudaFuncSetAttribute asks for " + bytesPhrase(*OptIn->Value) +
            " of dynamic shared memory for kernel '" + K.Name + "' on " + K.Arch +
            ", more than the " + bytesPhrase(Room) + " a block can have there beside its " +
            bytesPhrase(Static) + " of static shared memory; the call fails");
    D.Loc = OptIn->Loc;
    D.Notes.push_back({"kernel '" + K.Name + "' is defined here", K.Loc});
    Record(std::move(D));
  }
  if (OptIn && !OptIn->Value)
    return; // an opt-in value known only at run time: nothing to hold launches against
  const uint64_t Default =
      *K.Limit.BlockDefaultMax > Static ? *K.Limit.BlockDefaultMax - Static : 0;
  for (const LaunchReport &L : K.Launches) {
    if (!L.DynamicBytes || !L.TotalBytes || *L.TotalBytes > *K.Limit.BlockOptinMax)
      continue; // unknown, or beyond the hardware (tilefit-capacity says so)
    const uint64_t Allowed = OptIn ? static_cast<uint64_t>(*OptIn->Value) : Default;
    if (*L.DynamicBytes <= Allowed)
      continue;
    std::string Msg = "launch of kernel '" + K.Name + "' asks for " + bytesPhrase(*L.DynamicBytes) +
                      " of dynamic shared memory on " + K.Arch + ", more than the " +
                      bytesPhrase(Allowed);
    Msg += OptIn ? " set with cudaFuncSetAttribute; the launch fails"
                 : " it may have without opting in (48 KiB in all, " + bytesPhrase(Static) +
                       " static); the launch fails";
    Diagnostic D = makeDiagnostic(CheckId::OptIn, K, Msg);
    D.Loc = L.Loc;
    if (OptIn)
      D.Notes.push_back({"the opt-in is set here; raise it to at least " +
                             std::to_string(*L.DynamicBytes),
                         OptIn->Loc});
    else
      D.Notes.push_back({"opt in before the launch: cudaFuncSetAttribute(" + K.Name +
                             ", cudaFuncAttributeMaxDynamicSharedMemorySize, " +
                             std::to_string(*L.DynamicBytes) + ")",
                         K.Loc});
    for (const SharedVar &V : K.DynamicVars)
      D.Notes.push_back({"'" + V.Name + "' is dynamic shared memory, sized at launch", V.Loc});
    Record(std::move(D));
  }
}

/// Notes saying what would give one more block per SM: smaller extents, less dynamic memory.
void addNextStepNotes(const KernelReport &K, const KernelContext &C, Diagnostic &D) {
  if (!C.Arch || !K.Occupancy.BlockThreads || !K.Occupancy.BlocksPerSm)
    return;
  const uint64_t Target = *K.Occupancy.BlocksPerSm + 1;
  OccupancyInput Base = occupancyInput(K, *K.Occupancy.BlockThreads, C.Registers, C.Carveout);
  auto BlocksWith = [&](uint64_t Static, uint64_t Dynamic) -> uint64_t {
    OccupancyInput In = Base;
    In.StaticBytes = Static;
    In.DynamicBytes = Dynamic;
    auto O = computeOccupancy(*C.Arch, In);
    return O ? O->BlocksPerSm : 0;
  };
  const std::string Goal = "fits " + std::to_string(Target) + " blocks per SM instead of " +
                           std::to_string(*K.Occupancy.BlocksPerSm);
  auto Notes = C.Fit.extentNotes(
      [&](uint64_t Static) { return BlocksWith(Static, Base.DynamicBytes) >= Target; }, Goal);
  D.Notes.insert(D.Notes.end(), Notes.begin(), Notes.end());
  if (K.WorstLaunch && Base.DynamicBytes > 0)
    if (auto Most = FitAdvisor::largest(Base.DynamicBytes - 1, [&](uint64_t Dyn) {
          return BlocksWith(Base.StaticBytes, Dyn) >= Target;
        }))
      D.Notes.push_back({"with at most " + bytesPhrase(*Most) +
                             " of dynamic shared memory at this launch, the kernel " + Goal,
                         K.Launches[*K.WorstLaunch].Loc});
}

/// Occupancy limited by shared memory: a warning when __launch_bounds__(threads, minBlocks)
/// asks for more blocks than fit, else a remark; each with what would give one more block.
void checkOccupancy(KernelReport &K, const KernelContext &C,
                    const std::function<void(Diagnostic)> &Record) {
  const OccupancyReport &O = K.Occupancy;
  if (!O.BlocksPerSm || *O.BlocksPerSm == 0)
    return;
  const uint64_t Blocks = *O.BlocksPerSm;
  const bool Bounded = K.Bounds && K.Bounds->MinBlocks;
  const bool OnlySmem = O.LimitedBy == "shared memory";
  const bool BySmem = O.LimitedBy.find("shared memory") != std::string::npos;
  // Only where shared memory is what limits the blocks: when warps, registers or the block
  // limit do, less shared memory would not give one more block (ggml's kernels, bounded and
  // small, had a remark each).
  const bool TooFew = Bounded && Blocks < *K.Bounds->MinBlocks && BySmem;
  if (!TooFew && !OnlySmem)
    return;
  std::string Fits = "kernel '" + K.Name + "' fits " + std::to_string(Blocks) +
                     (Blocks == 1 ? " block" : " blocks") + " of " +
                     std::to_string(*O.BlockThreads) + " threads per SM on " + K.Arch +
                     " (limited by " + O.LimitedBy + ", " + bytesPhrase(*O.SmemPerBlock) +
                     " of shared memory per block)";
  Diagnostic D = makeDiagnostic(CheckId::Occupancy, K, Fits);
  if (TooFew) {
    D.Message += ", fewer than the " + std::to_string(*K.Bounds->MinBlocks) +
                 " its __launch_bounds__ asks for";
    D.Notes.push_back({"__launch_bounds__ asks for " + std::to_string(*K.Bounds->MinBlocks) +
                           " blocks per SM here",
                       K.Bounds->Loc});
    std::vector<Note> Allocations = allocationNotes(K, "");
    D.Notes.insert(D.Notes.end(), Allocations.begin(), Allocations.end());
  } else {
    D.Level = Severity::Remark;
  }
  addLaunchNotes(K, D);
  if (OnlySmem)
    addNextStepNotes(K, C, D);
  addInstantiationNote(K, D);
  Record(std::move(D));
}

void checkKernel(KernelReport &K, const AnalysisOptions &Opts, const KernelContext &C,
                 std::vector<Diagnostic> &Out) {
  if (!K.StaticBytes) {
    // A sum past 64 bits has no figure, but is certainly above the static limit.
    if (K.Overflows && K.Limit.StaticMax &&
        GlobList(Opts.Checks).contains(std::string(checkInfo(CheckId::StaticLimit).Name))) {
      Diagnostic D = makeDiagnostic(
          CheckId::StaticLimit, K,
          "kernel '" + K.Name + "' declares more static shared memory on " + K.Arch +
              " than 64 bits can count, far more than the " + bytesPhrase(*K.Limit.StaticMax) +
              " ptxas accepts for static allocations");
      D.Notes = allocationNotes(K, "");
      addInstantiationNote(K, D);
      K.Worst = D.Level;
      Out.push_back(std::move(D));
    }
    return;
  }
  const uint64_t Static = *K.StaticBytes;
  // The largest request of any launch whose dynamic size is known; the static part alone
  // without launches.
  uint64_t Total = Static;
  if (K.WorstLaunch)
    Total = *K.Launches[*K.WorstLaunch].TotalBytes;
  const std::string Who = "kernel '" + K.Name + "'";
  bool Error = false;
  GlobList Enabled(Opts.Checks);
  auto Record = [&](Diagnostic D) {
    if (!Enabled.contains(D.Check))
      return;
    if (!K.Worst || static_cast<int>(D.Level) > static_cast<int>(*K.Worst))
      K.Worst = D.Level;
    Out.push_back(std::move(D));
  };

  if (K.Limit.StaticMax && Static > *K.Limit.StaticMax) {
    Diagnostic D = makeDiagnostic(
        CheckId::StaticLimit, K,
        Who + " uses " + bytesPhrase(Static) + " of static shared memory on " + K.Arch +
            ", more than the " + bytesPhrase(*K.Limit.StaticMax) +
            " ptxas accepts for static allocations");
    D.Notes = allocationNotes(K, "declare it 'extern __shared__' and size it at launch to go "
                                 "above the static limit");
    const uint64_t Max = *K.Limit.StaticMax;
    for (Note &N : C.Fit.extentNotes([&](uint64_t T) { return T <= Max; },
                                     "fits the " + bytesPhrase(Max) + " static limit"))
      D.Notes.push_back(std::move(N));
    addInstantiationNote(K, D);
    Record(std::move(D));
    Error = true;
  }
  if (K.Limit.BlockOptinMax && Total > *K.Limit.BlockOptinMax) {
    Diagnostic D = makeDiagnostic(
        CheckId::Capacity, K,
        Who + " needs " + totalPhrase(K, Total) + " of shared memory per block on " + K.Arch +
            ", more than the " + bytesPhrase(*K.Limit.BlockOptinMax) +
            " a block can have there even with opt-in");
    D.Notes = allocationNotes(K, Total > Static ? "" : "shrink it for " + K.Arch);
    addLaunchNotes(K, D);
    const uint64_t Max = *K.Limit.BlockOptinMax, Dynamic = Total - Static;
    for (Note &N : C.Fit.extentNotes([&](uint64_t T) { return T + Dynamic <= Max; },
                                     "fits a block on " + K.Arch))
      D.Notes.push_back(std::move(N));
    if (Dynamic > 0 && Static < Max)
      D.Notes.push_back({"a launch may ask for at most " + bytesPhrase(Max - Static) +
                             " of dynamic shared memory for this kernel on " + K.Arch,
                         K.Launches[*K.WorstLaunch].Loc});
    addInstantiationNote(K, D);
    Record(std::move(D));
    Error = true;
  }
  checkOptIn(K, Out, Record);
  checkOccupancy(K, C, Record);
  if (!Error && K.Limit.BlockOptinMax && *K.Limit.BlockOptinMax > 0) {
    // The kernel's own budget if one matches its name, else the fraction for all.
    const KernelBudget *Own = nullptr;
    for (const KernelBudget &B : Opts.KernelBudgets)
      if (!Own && globMatch(B.Kernel, K.Name))
        Own = &B;
    const double Fraction = Own && Own->Fraction ? *Own->Fraction : Opts.Budget;
    const uint64_t Limit =
        Own && Own->Bytes
            ? *Own->Bytes
            : static_cast<uint64_t>(Fraction * static_cast<double>(*K.Limit.BlockOptinMax));
    if (Total > Limit) {
      const double Used =
          static_cast<double>(Total) / static_cast<double>(*K.Limit.BlockOptinMax);
      char Pct[32];
      std::snprintf(Pct, sizeof(Pct), "%.1f%%", Used * 100);
      std::string Over;
      if (Own && Own->Bytes) {
        Over = "its budget of " + bytesPhrase(*Own->Bytes) + " (" + Own->Kernel + ")";
      } else {
        char BudgetPct[32];
        std::snprintf(BudgetPct, sizeof(BudgetPct), "%g%%", Fraction * 100);
        Over = std::string("the ") + BudgetPct + " budget" + (Own ? " (" + Own->Kernel + ")" : "");
      }
      Diagnostic D = makeDiagnostic(
          CheckId::Budget, K,
          Who + " uses " + totalPhrase(K, Total) + " of shared memory on " + K.Arch + ", " + Pct +
              " of the " + bytesPhrase(*K.Limit.BlockOptinMax) + " per-block maximum, above " +
              Over);
      D.Figures.push_back({"budget_bytes", Limit});
      D.Notes = allocationNotes(K, "");
      addLaunchNotes(K, D);
      for (Note &N : C.Fit.extentNotes([&](uint64_t T) { return T + (Total - Static) <= Limit; },
                                       "fits the budget"))
        D.Notes.push_back(std::move(N));
      addInstantiationNote(K, D);
      Record(std::move(D));
    }
  }
}

std::string registersPhrase(uint64_t Registers) {
  return std::to_string(Registers) + (Registers == 1 ? " 32-bit register" : " 32-bit registers");
}

std::string fileName(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

/// Records a finding about \p K if its check is enabled, and remembers the worst level.
std::function<void(Diagnostic)> recorder(KernelReport &K, const AnalysisOptions &Opts,
                                         std::vector<Diagnostic> &Out) {
  return [&K, &Out, Enabled = GlobList(Opts.Checks)](Diagnostic D) {
    if (!Enabled.contains(D.Check))
      return;
    if (!K.Worst || static_cast<int>(D.Level) > static_cast<int>(*K.Worst))
      K.Worst = D.Level;
    Out.push_back(std::move(D));
  };
}

/// One note per per-thread array, largest first.
std::vector<Note> arrayNotes(const KernelReport &K) {
  std::vector<const SharedVar *> Sorted;
  for (const SharedVar &V : K.Registers.Arrays)
    Sorted.push_back(&V);
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const SharedVar *L, const SharedVar *R) {
    return L->Bytes.value_or(0) > R->Bytes.value_or(0);
  });
  std::vector<Note> Notes;
  for (const SharedVar *V : Sorted) {
    if (!V->Bytes || *V->Bytes == 0)
      continue;
    std::string Msg = "'" + V->Name + "' takes " + bytesPhrase(*V->Bytes) + shapeSuffix(*V) +
                      " per thread, " + registersPhrase(*V->Bytes / 4 + (*V->Bytes % 4 != 0));
    if (!V->Function.empty() && V->Function != K.Name)
      Msg += ", in '" + V->Function + "'";
    Notes.push_back({Msg, V->Loc});
  }
  return Notes;
}

/// Per-thread arrays above the registers ptxas may give a thread (they spill to local memory),
/// or, without __launch_bounds__, above what a block of its launch can have.
void checkRegisterTiles(KernelReport &K, const ArchCapacity *Arch,
                        const std::function<void(Diagnostic)> &Record) {
  const RegisterTileReport &R = K.Registers;
  if (!R.RegistersPerThread || *R.RegistersPerThread == 0)
    return;
  const uint64_t Regs = *R.RegistersPerThread;
  std::string Message = "kernel '" + K.Name + "' keeps " + bytesPhrase(*R.BytesPerThread) +
                        " per thread in local arrays on " + K.Arch + ", " + registersPhrase(Regs);
  std::vector<Note> Extra;
  if (R.Limit && Regs > *R.Limit) {
    if (R.LimitBasis == "registers.per_thread")
      Message += ", more than the " + std::to_string(*R.Limit) + " registers a thread can have";
    else
      Message += ", more than the " + std::to_string(*R.Limit) + " registers per thread " +
                 R.LimitBasis + (K.Bounds ? " leaves" : " allows");
    Message += "; what of them is live at once beyond that spills to local memory";
    if (K.Bounds && R.LimitBasis.rfind("__launch_bounds__", 0) == 0 && !R.LimitNote.empty())
      Extra.push_back({R.LimitNote + ": at most " + std::to_string(*R.Limit) +
                           " registers per thread",
                       K.Bounds->Loc});
    else if (K.Bounds && R.LimitBasis.rfind("__launch_bounds__", 0) == 0)
      Extra.push_back({R.LimitBasis + " asks for " +
                           std::to_string(K.Bounds->MinBlocks.value_or(1)) + " resident " +
                           (K.Bounds->MinBlocks.value_or(1) == 1 ? "block" : "blocks") + " of " +
                           std::to_string(*K.Bounds->MaxThreads) +
                           " threads per SM here: at most " + std::to_string(*R.Limit) +
                           " registers per thread",
                       K.Bounds->Loc});
  } else if (!K.Bounds && Arch) {
    // Without __launch_bounds__ ptxas does not know the block size and does not spill to fit
    // it: a launch whose block cannot have the registers fails.
    const LaunchReport *Widest = nullptr;
    for (const LaunchReport &L : K.Launches)
      if (L.BlockThreads && (!Widest || *L.BlockThreads > *Widest->BlockThreads))
        Widest = &L;
    if (!Widest)
      return;
    auto Fits = launchBoundsRegisterLimit(*Arch, *Widest->BlockThreads, 1);
    if (!Fits || Regs <= *Fits || (R.Limit && *R.Limit <= *Fits))
      return;
    Message += ", more than the " + std::to_string(*Fits) + " registers per thread a block of " +
               std::to_string(*Widest->BlockThreads) + " threads can have there; unless " +
               "__launch_bounds__(" + std::to_string(*Widest->BlockThreads) +
               ") makes ptxas spill them, the launch fails (too many resources requested)";
    Extra.push_back({"launched here with " + std::to_string(*Widest->BlockThreads) +
                         " threads per block",
                     Widest->Loc});
  } else {
    return;
  }
  Diagnostic D = makeDiagnostic(CheckId::Registers, K, Message);
  D.Figures = {{"array_bytes_per_thread", *R.BytesPerThread},
               {"array_registers_per_thread", Regs}};
  if (R.Limit)
    D.Figures.push_back({"registers_per_thread_limit", *R.Limit});
  D.Notes = arrayNotes(K);
  D.Notes.insert(D.Notes.end(), Extra.begin(), Extra.end());
  addInstantiationNote(K, D);
  Record(std::move(D));
}

/// Tensor Memory requests ptxas or the hardware cannot grant: a count that is not a power of 2
/// in range, or more columns in all than an SM has.
void checkTensorMemory(KernelReport &K, const ArchCapacity *Arch,
                       const std::function<void(Diagnostic)> &Record) {
  if (!K.TensorMemory || !K.TensorMemory->Capacity)
    return;
  const TensorMemoryReport &T = *K.TensorMemory;
  const uint64_t Capacity = *T.Capacity;
  // Without the smallest count in the database, only the SM's columns bound a request.
  const uint64_t Min = Arch && Arch->TensorMemoryMinAllocColumns
                           ? *Arch->TensorMemoryMinAllocColumns
                           : 0;
  bool AllValid = true;
  for (const TmemAllocation &A : T.Allocations) {
    if (!A.Columns || (Min == 0 ? *A.Columns <= Capacity
                                : validTmemAllocation(*A.Columns, Min, Capacity)))
      continue;
    AllValid = false;
    Diagnostic D = makeDiagnostic(
        CheckId::Tmem, K,
        A.Form + " asks for " + std::to_string(*A.Columns) + " columns of Tensor Memory in kernel '" +
            K.Name + "' on " + K.Arch + (Min == 0 ? "; a count may be at most " + std::to_string(Capacity)
                                : "; a count must be a power of 2 from " + std::to_string(Min) +
                                      " to " + std::to_string(Capacity)));
    D.Loc = A.Loc;
    D.Figures = {{"tmem_columns", *A.Columns}, {"tmem_columns_limit", Capacity}};
    D.Notes.push_back({"kernel '" + K.Name + "' is defined here", K.Loc});
    addInstantiationNote(K, D);
    Record(std::move(D));
  }
  if (!AllValid || !T.Columns || *T.Columns <= Capacity)
    return;
  Diagnostic D = makeDiagnostic(
      CheckId::Tmem, K,
      "kernel '" + K.Name + "' allocates " + std::to_string(*T.Columns) +
          " columns of Tensor Memory on " + K.Arch + ", more than the " +
          std::to_string(Capacity) + " columns of an SM; unless it frees columns in between, " +
          "its last allocation blocks forever");
  // tilefit cannot see the deallocations, so this one is a warning.
  D.Level = Severity::Warning;
  D.Figures = {{"tmem_columns", *T.Columns}, {"tmem_columns_limit", Capacity}};
  std::vector<const TmemAllocation *> Sorted;
  for (const TmemAllocation &A : T.Allocations)
    Sorted.push_back(&A);
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const auto *L, const auto *R) {
    return L->Columns.value_or(0) > R->Columns.value_or(0);
  });
  for (const TmemAllocation *A : Sorted)
    D.Notes.push_back({A->Form + " allocates " + std::to_string(*A->Columns) + " columns" +
                           (A->CtaGroup == 2 ? " on each of two SMs" : "") + " here",
                       A->Loc});
  addInstantiationNote(K, D);
  Record(std::move(D));
}

/// A unit whose `__constant__` data exceeds the per-module limit: ptxas rejects it.
void checkConstantMemory(const TranslationUnitFacts &TU, const ConstantMemoryReport &C,
                         const AnalysisOptions &Opts, std::vector<Diagnostic> &Out) {
  if (!C.Bytes || !C.Limit || *C.Bytes <= *C.Limit || !GlobList(Opts.Checks).contains(
                                                          std::string(checkInfo(CheckId::Constant).Name)))
    return;
  const CheckInfo &Info = checkInfo(CheckId::Constant);
  Diagnostic D;
  D.Level = Info.DefaultSeverity;
  D.Check = std::string(Info.Name);
  D.Arch = TU.Arch;
  D.TranslationUnit = TU.File;
  D.Message = "the __constant__ variables of '" + fileName(TU.File) + "' take " +
              bytesPhrase(*C.Bytes) + " on " + TU.Arch + ", more than the " +
              bytesPhrase(*C.Limit) + " ptxas accepts in one module";
  D.Figures = {{"constant_bytes", *C.Bytes}, {"constant_limit", *C.Limit}};
  // At the variable that crosses the limit.
  for (const AllocationReport &A : C.Variables)
    if (A.Offset && A.Var.Bytes && *A.Offset + *A.Var.Bytes > *C.Limit) {
      D.Loc = A.Var.Loc;
      break;
    }
  std::vector<const AllocationReport *> Sorted;
  for (const AllocationReport &A : C.Variables)
    Sorted.push_back(&A);
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const auto *L, const auto *R) {
    return L->Var.Bytes.value_or(0) > R->Var.Bytes.value_or(0);
  });
  for (const AllocationReport *A : Sorted) {
    std::string Msg = "'" + A->Var.QualifiedName + "' takes " + bytesPhrase(A->Var.Bytes.value_or(0)) +
                      shapeSuffix(A->Var);
    if (A->Offset)
      Msg += " at offset " + std::to_string(*A->Offset);
    if (D.Notes.empty())
      Msg += "; move large read-only tables to global memory (a const __restrict__ pointer)";
    D.Notes.push_back({Msg, A->Var.Loc});
  }
  if (C.Relocatable)
    D.Notes.push_back({"with -rdc, nvlink also checks the sum over the program's units when it "
                       "links; tilefit adds up the -rdc units of one run as one program",
                       {TU.File, 0, 0}});
  Out.push_back(std::move(D));
}

Limits limitsOf(const ArchCapacity *C) {
  Limits L;
  if (!C)
    return L;
  L.StaticMax = C->StaticMax;
  L.BlockDefaultMax = C->BlockDefaultMax;
  L.BlockOptinMax = C->BlockOptinMax;
  L.SmMax = C->SharedPerSm;
  L.ReservedPerBlock = C->ReservedPerBlock;
  return L;
}

auto posKey(const SourcePos &P) { return std::tie(P.File, P.Line, P.Column); }

/// `k.cu:12:5: use of undeclared identifier 'x'`
std::string errorPhrase(const TranslationUnitFacts &TU, size_t Index) {
  if (Index >= TU.Diagnostics.size())
    return "an error of the unit";
  const Diagnostic &D = TU.Diagnostics[Index];
  std::string Where = fileName(D.Loc.File.empty() ? TU.File : D.Loc.File);
  if (D.Loc.valid())
    Where += ":" + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column);
  return "'" + Where + ": " + D.Message + "'";
}

/// For a kernel of a unit with errors: why its figures are unknown, or "" when no error can
/// have changed them. The front end says which error touches the kernel's own code
/// (KernelFacts::Error); what remains is the layout's dependence on kernels the errors may
/// hide: whether they share the kernel's sharable variables, or reach an extern array.
std::string unitErrorReason(const TranslationUnitFacts &TU, const UnitLayout &Layout,
                            size_t Kernel) {
  const KernelFacts &K = TU.Kernels[Kernel];
  if (K.Error) {
    const std::string E = errorPhrase(TU, K.Error->Diagnostic);
    switch (K.Error->How) {
    case ErrorTouch::Kind::InItsCode:
      return "the translation unit has an error in code this kernel uses: " + E;
    case ErrorTouch::Kind::UnbuiltCode:
      return "Clang could not build all of the code this kernel uses after the translation "
             "unit's errors (the first: " + E + ")";
    case ErrorTouch::Kind::NoBody:
      return "Clang did not instantiate this kernel after the translation unit's errors (the "
             "first: " + E + ")";
    }
  }
  std::optional<size_t> Culprit;
  std::optional<std::vector<uint64_t>> Totals = Layout.possibleTotals(Kernel, Culprit);
  const std::string First = TU.Diagnostics.empty() ? "" : " (the first: " + errorPhrase(TU, 0) + ")";
  if (!Totals)
    return "the translation unit's errors may hide other kernels" + First +
           ", and this kernel has too many variables they could share to lay it out without them";
  if (Totals->size() <= 1)
    return "";
  std::string Range = std::to_string(Totals->front()) + " to " + std::to_string(Totals->back()) +
                      " bytes";
  if (Culprit)
    return "the translation unit's errors may hide other kernels" + First + ", and whether one "
           "also uses '" + TU.Vars[*Culprit].QualifiedName + "' changes this kernel's layout (" +
           Range + ")";
  return "the translation unit's errors may hide other kernels" + First + ", and whether one "
         "reaches an extern __shared__ array changes this kernel's total (" + Range + ")";
}

} // namespace

void analyzeUnit(const TranslationUnitFacts &TU, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out) {
  UnitReport U;
  U.File = TU.File;
  U.Arch = TU.Arch;
  U.ParsedAs = TU.ParsedAs;
  U.Jit = TU.Jit;
  U.Ok = !TU.Failed && !TU.Partial;
  U.Partial = TU.Partial && !TU.Failed;
  U.ParseStopped = TU.ParseStopped;
  U.Fixups = TU.Fixups;
  U.Messages = TU.Diagnostics;
  // A launch an error kept Clang from building hides the specialization it launches, unless
  // the unit has it anyway.
  for (const LostLaunch &L : TU.LostLaunches) {
    auto Bare = [](std::string S) {
      S.erase(std::remove(S.begin(), S.end(), ' '), S.end());
      return S;
    };
    if (!L.Unresolved &&
        std::any_of(TU.Kernels.begin(), TU.Kernels.end(),
                    [&](const KernelFacts &K) { return Bare(K.Name) == Bare(L.Callee); }))
      continue;
    Diagnostic D;
    D.Level = Severity::Warning;
    D.Check = std::string(checkInfo(CheckId::Input).Name);
    D.Message = L.Unresolved && !L.Helper.empty()
                    ? "the kernel this launch starts is a parameter of '" + L.Helper + "' ('" +
                          L.Callee + "') and no call of it in this unit tells which: its "
                          "dynamic shared memory counts for no kernel"
                : L.Unresolved
                    ? "the kernel this launch through '" + L.Callee +
                          "' starts is not known statically (not a kernel, nor a variable set "
                          "to one and never assigned): its dynamic shared memory counts for no "
                          "kernel"
                    : "this launch of '" + L.Callee + "' could not be built after an error: "
                      "the kernel it launches is not instantiated, and not analysed";
    D.Loc = L.Loc;
    D.Arch = TU.Arch;
    U.Messages.push_back(std::move(D));
  }
  for (Diagnostic &D : U.Messages)
    D.TranslationUnit = TU.File;
  const ArchCapacity *Arch = DB.lookup(TU.Arch);
  if (!TU.Failed) {
    U.ConstantMemory = constantMemory(TU, Arch);
    checkConstantMemory(TU, *U.ConstantMemory, Opts, Out.Diagnostics);
  }
  Out.Units.push_back(std::move(U));
  if (TU.Failed)
    return;

  const Limits Lim = limitsOf(Arch);
  UnitLayout Layout(TU);
  for (size_t I = 0; I < TU.Kernels.size(); ++I) {
    const KernelFacts &KF = TU.Kernels[I];
    KernelLayout L = Layout.layout(I);
    KernelReport K;
    K.Name = KF.Name;
    K.Mangled = KF.Mangled;
    K.Loc = KF.Loc;
    K.InstantiatedAt = KF.InstantiatedAt;
    K.TranslationUnit = TU.File;
    K.Arch = TU.Arch;
    K.ParsedAs = TU.ParsedAs;
    K.Jit = TU.Jit;
    K.StaticBytes = L.Total;
    K.UnknownReason = L.UnknownReason;
    if (TU.Partial) {
      if (std::string Why = unitErrorReason(TU, Layout, I); !Why.empty()) {
        K.StaticBytes.reset();
        K.UnknownReason = std::move(Why);
        for (Placement &P : L.Placed)
          P.Offset.reset();
      } else {
        K.UnitHasErrors = true;
      }
    }
    K.Overflows = L.Overflows;
    K.RoundedTo = L.RoundedTo;
    K.DynamicDeclared = L.DynamicDeclared;
    for (size_t V : L.Dynamic)
      K.DynamicVars.push_back(TU.Vars[V]);
    for (const Placement &P : L.Placed)
      K.Allocations.push_back(
          {TU.Vars[P.Var], P.Offset, P.SharedWithOtherKernels, P.AtModuleScope});
    for (size_t V : KF.Unreferenced)
      K.Unreferenced.push_back(TU.Vars[V]);
    for (const LaunchSite &Site : KF.Launches) {
      LaunchReport L;
      L.Loc = Site.Loc;
      L.DynamicBytes = Site.DynamicBytes;
      L.UnknownReason = Site.UnknownReason;
      L.BlockThreads = Site.BlockThreads;
      if (K.StaticBytes && Site.DynamicBytes)
        L.TotalBytes = checkedAdd(*K.StaticBytes, *Site.DynamicBytes);
      if (L.TotalBytes &&
          (!K.WorstLaunch || *L.TotalBytes > *K.Launches[*K.WorstLaunch].TotalBytes))
        K.WorstLaunch = K.Launches.size();
      K.Launches.push_back(std::move(L));
    }
    K.Limit = Lim;
    K.Attributes = KF.Attributes;
    K.Bounds = KF.Bounds;
    std::optional<int> Carveout;
    for (const AttributeCall &A : KF.Attributes) {
      if (A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize)
        K.OptInBytes = A.Value ? std::optional<uint64_t>(*A.Value) : std::nullopt;
      else if (A.Value)
        Carveout = static_cast<int>(*A.Value);
    }
    const std::optional<uint64_t> Registers = Opts.Registers ? Opts.Registers : TU.MaxRegisters;
    K.Occupancy = occupancyOf(K, Arch, Registers, Carveout);
    K.Registers = registerTiles(TU, KF, Arch, TU.MaxRegisters);
    K.TensorMemory = tensorMemory(KF, Arch);
    FitAdvisor Fit(TU, Layout, I);
    checkKernel(K, Opts, KernelContext{Fit, Arch, Registers, Carveout}, Out.Diagnostics);
    auto Record = recorder(K, Opts, Out.Diagnostics);
    checkRegisterTiles(K, Arch, Record);
    checkTensorMemory(K, Arch, Record);
    Out.Kernels.push_back(std::move(K));
  }
}

void checkProgram(const AnalysisOptions &Opts, Report &R) {
  if (!GlobList(Opts.Checks).contains(std::string(checkInfo(CheckId::Constant).Name)))
    return;
  // Per architecture: the relocatable units with their constant data.
  std::map<std::string, std::vector<const UnitReport *>> ByArch;
  for (const UnitReport &U : R.Units)
    if (U.ConstantMemory && U.ConstantMemory->Relocatable && U.ConstantMemory->Bytes &&
        *U.ConstantMemory->Bytes > 0 && U.ConstantMemory->Limit)
      ByArch[U.Arch].push_back(&U);
  for (const auto &[Arch, Units] : ByArch) {
    if (Units.size() < 2)
      continue; // One unit: its own check said it all.
    uint64_t Sum = 0;
    bool Overflow = false;
    for (const UnitReport *U : Units)
      Overflow |= __builtin_add_overflow(Sum, *U->ConstantMemory->Bytes, &Sum);
    const uint64_t Limit = *Units.front()->ConstantMemory->Limit;
    if (!Overflow && Sum <= Limit)
      continue;
    const CheckInfo &Info = checkInfo(CheckId::Constant);
    Diagnostic D;
    D.Level = Info.DefaultSeverity;
    D.Check = std::string(Info.Name);
    D.Arch = Arch;
    D.Message = "the __constant__ data of the " + std::to_string(Units.size()) +
                " units compiled with -rdc take " +
                (Overflow ? std::string("more than 64 bits can count") : bytesPhrase(Sum)) +
                " on " + Arch + " together, more than the " + bytesPhrase(Limit) +
                " nvlink accepts in one program if they are linked together";
    D.Figures = {{"constant_bytes", Overflow ? UINT64_MAX : Sum}, {"constant_limit", Limit}};
    for (const UnitReport *U : Units)
      D.Notes.push_back({"'" + fileName(U->File) + "' has " +
                             bytesPhrase(*U->ConstantMemory->Bytes) + " of __constant__ data",
                         {U->File, 0, 0}});
    D.TranslationUnit = Units.front()->File;
    D.Loc = {Units.front()->File, 0, 0};
    R.Diagnostics.push_back(std::move(D));
  }
}

void finalizeReport(Report &R) {
  std::stable_sort(R.Units.begin(), R.Units.end(), [](const UnitReport &A, const UnitReport &B) {
    return std::tie(A.File, A.Arch) < std::tie(B.File, B.Arch);
  });
  std::stable_sort(R.Kernels.begin(), R.Kernels.end(),
                   [](const KernelReport &A, const KernelReport &B) {
                     return std::tie(A.TranslationUnit, A.Loc.File, A.Loc.Line, A.Loc.Column,
                                     A.Name, A.Arch) <
                            std::tie(B.TranslationUnit, B.Loc.File, B.Loc.Line, B.Loc.Column,
                                     B.Name, B.Arch);
                   });
  auto Less = [](const Diagnostic &A, const Diagnostic &B) {
    return std::tuple_cat(posKey(A.Loc), std::tie(A.Arch, A.Check, A.Message)) <
           std::tuple_cat(posKey(B.Loc), std::tie(B.Arch, B.Check, B.Message));
  };
  // The same finding from two units (a kernel in a shared header) is one finding.
  std::stable_sort(R.Diagnostics.begin(), R.Diagnostics.end(), Less);
  R.Diagnostics.erase(std::unique(R.Diagnostics.begin(), R.Diagnostics.end(),
                                  [&](const Diagnostic &A, const Diagnostic &B) {
                                    return !Less(A, B) && !Less(B, A);
                                  }),
                      R.Diagnostics.end());
}

std::optional<Severity> worstSeverity(const Report &R) {
  std::optional<Severity> Worst;
  auto Take = [&](Severity S) {
    if (!Worst || static_cast<int>(S) > static_cast<int>(*Worst))
      Worst = S;
  };
  for (const Diagnostic &D : R.Diagnostics)
    Take(D.Level);
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages)
      if (!(U.ErrorsAllowed && D.Check == checkInfo(CheckId::ClangError).Name))
        Take(D.Level);
  for (const Diagnostic &D : R.ToolMessages)
    Take(D.Level);
  return Worst;
}

} // namespace tilefit
