//===- Analysis.cpp - Figures and findings for one translation unit -------===//
#include "tilefit/model/Analysis.h"

#include "tilefit/model/Checks.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Units.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
  OccupancyInput In;
  In.BlockThreads = *R.BlockThreads;
  In.Registers = Registers.value_or(0);
  In.StaticBytes = *K.StaticBytes;
  In.DynamicBytes = K.WorstLaunch ? *K.Launches[*K.WorstLaunch].DynamicBytes : 0;
  In.OptInBytes = K.OptInBytes;
  In.CarveoutPercent = Carveout;
  auto O = computeOccupancy(*Arch, In);
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

/// __launch_bounds__(threads, minBlocks) that shared memory makes impossible: a warning; when
/// it is met, a remark with the blocks per SM.
void checkOccupancy(KernelReport &K, const std::function<void(Diagnostic)> &Record) {
  if (!K.Bounds || !K.Bounds->MinBlocks || !K.Occupancy.BlocksPerSm)
    return;
  const uint64_t Blocks = *K.Occupancy.BlocksPerSm, Min = *K.Bounds->MinBlocks;
  const bool BySmem = K.Occupancy.LimitedBy.find("shared memory") != std::string::npos;
  std::string Fits = "kernel '" + K.Name + "' fits " + std::to_string(Blocks) +
                     (Blocks == 1 ? " block" : " blocks") + " of " +
                     std::to_string(*K.Occupancy.BlockThreads) + " threads per SM on " + K.Arch +
                     " (limited by " + K.Occupancy.LimitedBy + ", " +
                     bytesPhrase(*K.Occupancy.SmemPerBlock) + " of shared memory per block)";
  Diagnostic D = makeDiagnostic(CheckId::Occupancy, K, Fits);
  if (Blocks < Min && BySmem) {
    D.Message += ", fewer than the " + std::to_string(Min) + " its __launch_bounds__ asks for";
    D.Notes.push_back({"__launch_bounds__ asks for " + std::to_string(Min) + " blocks per SM here",
                       K.Bounds->Loc});
    std::vector<Note> Allocations = allocationNotes(K, "");
    D.Notes.insert(D.Notes.end(), Allocations.begin(), Allocations.end());
  } else {
    D.Level = Severity::Remark;
  }
  addLaunchNotes(K, D);
  addInstantiationNote(K, D);
  Record(std::move(D));
}

void checkKernel(KernelReport &K, const AnalysisOptions &Opts, std::vector<Diagnostic> &Out) {
  if (!K.StaticBytes)
    return;
  const uint64_t Static = *K.StaticBytes;
  // The largest request of any launch whose dynamic size is known; the static part alone
  // without launches.
  uint64_t Total = Static;
  if (K.WorstLaunch)
    Total = *K.Launches[*K.WorstLaunch].TotalBytes;
  const std::string Who = "kernel '" + K.Name + "'";
  bool Error = false;
  auto Record = [&](Diagnostic D) {
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
    addInstantiationNote(K, D);
    Record(std::move(D));
    Error = true;
  }
  checkOptIn(K, Out, Record);
  checkOccupancy(K, Record);
  if (!Error && K.Limit.BlockOptinMax && *K.Limit.BlockOptinMax > 0) {
    const double Fraction = static_cast<double>(Total) / static_cast<double>(*K.Limit.BlockOptinMax);
    if (Fraction > Opts.Budget) {
      char Pct[32], BudgetPct[32];
      std::snprintf(Pct, sizeof(Pct), "%.1f%%", Fraction * 100);
      std::snprintf(BudgetPct, sizeof(BudgetPct), "%g%%", Opts.Budget * 100);
      Diagnostic D = makeDiagnostic(
          CheckId::Budget, K,
          Who + " uses " + totalPhrase(K, Total) + " of shared memory on " + K.Arch + ", " + Pct +
              " of the " + bytesPhrase(*K.Limit.BlockOptinMax) + " per-block maximum, above the " +
              BudgetPct + " budget");
      D.Notes = allocationNotes(K, "");
      addLaunchNotes(K, D);
      addInstantiationNote(K, D);
      Record(std::move(D));
    }
  }
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

} // namespace

void analyzeUnit(const TranslationUnitFacts &TU, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out) {
  UnitReport U;
  U.File = TU.File;
  U.Arch = TU.Arch;
  U.ParsedAs = TU.ParsedAs;
  U.Jit = TU.Jit;
  U.Ok = !TU.Failed;
  U.Messages = TU.Diagnostics;
  for (Diagnostic &D : U.Messages)
    D.TranslationUnit = TU.File;
  Out.Units.push_back(std::move(U));
  if (TU.Failed)
    return;

  const ArchCapacity *Arch = DB.lookup(TU.Arch);
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
    K.Occupancy = occupancyOf(K, Arch, Opts.Registers ? Opts.Registers : TU.MaxRegisters, Carveout);
    checkKernel(K, Opts, Out.Diagnostics);
    Out.Kernels.push_back(std::move(K));
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
      Take(D.Level);
  for (const Diagnostic &D : R.ToolMessages)
    Take(D.Level);
  return Worst;
}

} // namespace tilefit
