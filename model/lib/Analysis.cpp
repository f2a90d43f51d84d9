//===- Analysis.cpp - Figures and findings for one translation unit -------===//
#include "tilefit/model/Analysis.h"
#include "tilefit/model/CallGraph.h"

#include "../checks/CheckSupport.h"
#include "tilefit/model/ByteUnits.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/GlobList.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/Messages.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Scopes.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

namespace tilefit {
namespace {

/// The kernel's occupancy at its largest launch (or, without launches, with no
/// dynamic memory), with the block size of that launch, another constant one,
/// or __launch_bounds__.
OccupancyReport occupancyOf(const KernelReport &K, const ArchCapacity *Arch,
                            std::optional<uint64_t> Registers,
                            std::optional<int> Carveout) {
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
    R.UnknownReason =
        "no launch with a constant block size and no __launch_bounds__";
    return R;
  }
  if (!Arch) {
    R.UnknownReason = "the architecture is not in the capacity database";
    return R;
  }
  auto O = computeOccupancy(
      *Arch, checks::occupancyInput(K, *R.BlockThreads, Registers, Carveout));
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

/// Records a finding about \p K if its check is enabled, and remembers the
/// worst level.
std::function<void(Diagnostic)> recorder(KernelReport &K,
                                         const AnalysisOptions &Opts,
                                         std::vector<Diagnostic> &Out) {
  return [&K, &Out, Enabled = GlobList(Opts.Checks)](Diagnostic D) {
    if (!Enabled.contains(D.Check))
      return;
    if (!K.Worst || static_cast<int>(D.Level) > static_cast<int>(*K.Worst))
      K.Worst = D.Level;
    Out.push_back(std::move(D));
  };
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
  std::string Where = fileNameOf(D.Loc.File.empty() ? TU.File : D.Loc.File);
  if (D.Loc.valid())
    Where +=
        ":" + std::to_string(D.Loc.Line) + ":" + std::to_string(D.Loc.Column);
  return "'" + Where + ": " + D.Message + "'";
}

/// For a kernel of a unit with errors: why its figures are unknown, or "" when
/// no error can have changed them. The front end says which error touches the
/// kernel's own code (KernelFacts::Error); what remains is the layout's
/// dependence on kernels the errors may hide: whether they share the kernel's
/// sharable variables, or reach an extern array.
std::string unitErrorReason(const TranslationUnitFacts &TU,
                            const UnitLayout &Layout, size_t Kernel) {
  const KernelFacts &K = TU.Kernels[Kernel];
  if (K.Error) {
    const std::string E = errorPhrase(TU, K.Error->Diagnostic);
    switch (K.Error->How) {
    case ErrorTouch::Kind::InItsCode:
      return "the translation unit has an error in code this kernel uses: " + E;
    case ErrorTouch::Kind::UnbuiltCode:
      return "Clang could not build all of the code this kernel uses after the "
             "translation "
             "unit's errors (the first: " +
             E + ")";
    case ErrorTouch::Kind::NoBody:
      return "Clang did not instantiate this kernel after the translation "
             "unit's errors (the "
             "first: " +
             E + ")";
    }
  }
  std::optional<size_t> Culprit;
  std::optional<std::vector<uint64_t>> Totals =
      Layout.possibleTotals(Kernel, Culprit);
  const std::string First =
      TU.Diagnostics.empty() ? "" : " (the first: " + errorPhrase(TU, 0) + ")";
  if (!Totals)
    return "the translation unit's errors may hide other kernels" + First +
           ", and this kernel has too many variables they could share to lay "
           "it out without them";
  if (Totals->size() <= 1)
    return "";
  std::string Range = std::to_string(Totals->front()) + " to " +
                      std::to_string(Totals->back()) + " bytes";
  if (Culprit)
    return "the translation unit's errors may hide other kernels" + First +
           ", and whether one "
           "also uses '" +
           TU.Vars[*Culprit].QualifiedName +
           "' changes this kernel's layout (" + Range + ")";
  return "the translation unit's errors may hide other kernels" + First +
         ", and whether one "
         "reaches an extern __shared__ array changes this kernel's total (" +
         Range + ")";
}

} // namespace

void markWorstFindings(Report &R) {
  for (KernelReport &K : R.Kernels) {
    K.Worst.reset();
    const bool InHeader =
        !K.TranslationUnit.empty() && K.Loc.File != K.TranslationUnit;
    for (const Diagnostic &D : R.Diagnostics)
      if (D.Kernel == K.Name && D.Arch == K.Arch &&
          (D.TranslationUnit.empty() ||
           D.TranslationUnit == K.TranslationUnit || InHeader) &&
          (!K.Worst || static_cast<int>(D.Level) > static_cast<int>(*K.Worst)))
        K.Worst = D.Level;
  }
}

std::optional<size_t> worstLaunch(const std::vector<LaunchReport> &Launches) {
  std::optional<size_t> Worst;
  for (size_t I = 0; I < Launches.size(); ++I)
    if (Launches[I].TotalBytes &&
        (!Worst || *Launches[I].TotalBytes > *Launches[*Worst].TotalBytes))
      Worst = I;
  return Worst;
}

namespace {

/// The warning for a launch whose kernel is not among the unit's: its
/// callee a parameter no call decides, not known statically, or not built
/// after an error. None when the unit has the kernel anyway.
std::optional<Diagnostic> lostLaunchMessage(const TranslationUnitFacts &TU,
                                            const LostLaunch &L) {
  auto Bare = [](std::string S) {
    S.erase(std::remove(S.begin(), S.end(), ' '), S.end());
    return S;
  };
  if (!L.Unresolved && std::any_of(TU.Kernels.begin(), TU.Kernels.end(),
                                   [&](const KernelFacts &K) {
                                     return Bare(K.Name) == Bare(L.Callee);
                                   }))
    return std::nullopt;
  Diagnostic D;
  D.Level = Severity::Warning;
  D.Check = std::string(checkInfo(CheckId::Input).Name);
  D.Message = L.Unresolved && !L.Helper.empty()
                  ? "the kernel this launch starts is a parameter of '" +
                        L.Helper + "' ('" + L.Callee +
                        "') and no call of it in this unit tells which: its "
                        "dynamic shared memory counts for no kernel"
              : L.Unresolved ? "the kernel this launch through '" + L.Callee +
                                   "' starts is not known statically (not a "
                                   "kernel, nor a variable set to one and "
                                   "never assigned): its dynamic shared "
                                   "memory counts for no kernel"
                             : "this launch of '" + L.Callee +
                                   "' could not be built after an error: the "
                                   "kernel it launches is not instantiated, "
                                   "and not analysed";
  D.Loc = L.Loc;
  D.Arch = TU.Arch;
  return D;
}

/// The unit's own report: how it parsed, its messages (Clang's and the lost
/// launches'), before any kernel.
UnitReport unitReportOf(const TranslationUnitFacts &TU) {
  UnitReport U;
  U.File = TU.File;
  U.Arch = TU.Arch;
  U.ParsedAs = TU.ParsedAs;
  U.Jit = TU.Jit;
  U.Ok = !TU.Failed && !TU.Partial;
  U.Partial = TU.Partial && !TU.Failed;
  U.ParseStopped = TU.ParseStopped;
  U.Fixups = TU.Fixups;
  U.Slicing = TU.Slicing;
  U.Messages = TU.Diagnostics;
  // A launch an error kept Clang from building hides the specialization it
  // launches, unless the unit has it anyway.
  for (const LostLaunch &L : TU.LostLaunches)
    if (std::optional<Diagnostic> D = lostLaunchMessage(TU, L))
      U.Messages.push_back(std::move(*D));
  for (Diagnostic &D : U.Messages)
    D.TranslationUnit = TU.File;
  return U;
}

/// The launches of \p KF with what each asks for, a size the configuration
/// states filling in what tilefit could not compute.
std::vector<LaunchReport> launchReportsOf(const KernelFacts &KF,
                                          const KernelReport &K,
                                          const AnalysisOptions &Opts) {
  std::vector<LaunchReport> Out;
  // A size the configuration states for the kernel: for each launch whose
  // size is not a compile-time constant, or as the one launch of a kernel
  // the unit does not launch (a library's, launched elsewhere).
  const KernelDynamicSize *Stated = nullptr;
  for (const KernelDynamicSize &S : Opts.DynamicSizes)
    if (!Stated && globMatch(S.Kernel, K.Name))
      Stated = &S;
  std::vector<LaunchSite> Sites = KF.Launches;
  if (Stated && Sites.empty()) {
    LaunchSite Site;
    Site.Loc = KF.Loc;
    Sites.push_back(Site);
  }
  for (const LaunchSite &Site : Sites) {
    LaunchReport L;
    L.Loc = Site.Loc;
    L.DynamicBytes = Site.DynamicBytes;
    L.UnknownReason = describe(Site.UnknownReason);
    L.UnknownReasonKind = Site.UnknownReason;
    L.BlockThreads = Site.BlockThreads;
    L.StatedBy = Site.StatedBy;
    L.Written = Site.Written;
    if (!L.DynamicBytes && Stated) {
      L.DynamicBytes = Stated->Bytes;
      L.UnknownReason.clear();
      L.UnknownReasonKind.clear();
      L.StatedBy = "configuration";
    }
    if (K.StaticBytes && L.DynamicBytes)
      L.TotalBytes = checkedAdd(*K.StaticBytes, *L.DynamicBytes);
    Out.push_back(std::move(L));
  }
  return Out;
}

/// The report of kernel \p I of \p TU with every figure, before the checks;
/// \p Carveout set to its preferred carveout where an attribute call sets one.
/// The block the bank analysis runs: the first launch with a constant shape,
/// else __launch_bounds__'s threads as one row, else the first warp alone.
BlockShape blockShapeOf(const KernelFacts &KF, const AnalysisOptions &Opts) {
  BlockShape B;
  for (const LaunchSite &L : KF.Launches)
    if (L.BlockShape.size() == 3 && L.BlockShape[0] && L.BlockShape[1] &&
        L.BlockShape[2]) {
      B.Dim = {L.BlockShape[0], L.BlockShape[1], L.BlockShape[2]};
      B.Known = true;
      B.Source = "launch";
      return B;
    }
  // The configuration's shape before __launch_bounds__, which gives a count,
  // not a shape.
  for (const KernelBlockShape &S : Opts.BlockShapes)
    if (globMatch(S.Kernel, KF.Name)) {
      B.Dim = {S.X, S.Y, S.Z};
      B.Known = true;
      B.Source = "configuration";
      return B;
    }
  if (KF.Bounds && KF.Bounds->MaxThreads && *KF.Bounds->MaxThreads) {
    B.Dim = {*KF.Bounds->MaxThreads, 1, 1};
    B.Known = true;
    B.Source = "__launch_bounds__";
  }
  return B;
}

/// Every load and store of a `__shared__` variable \p KF reaches, with its
/// bank conflicts on \p Arch.
std::vector<BankAccessReport> bankAccesses(const TranslationUnitFacts &TU,
                                           const KernelFacts &KF,
                                           const ArchCapacity *Arch,
                                           const AnalysisOptions &Opts) {
  std::vector<BankAccessReport> Out;
  if (!Arch || !KF.Function || *KF.Function >= TU.Functions.size())
    return Out;
  const std::optional<BankModel> Model = bankModelOf(*Arch);
  if (!Model)
    return Out;
  const BlockShape Block = blockShapeOf(KF, Opts);
  for (size_t Fn : functionsReachedFrom(TU, *KF.Function)) {
    const FunctionFacts &F = TU.Functions[Fn];
    for (const SharedAccess &A : F.Accesses) {
      if (A.Var >= TU.Vars.size())
        continue;
      BankAccessReport R;
      R.Access = A;
      for (size_t L : A.Loops)
        if (L < F.Loops.size()) {
          if (R.Loops.size() <= L)
            R.Loops.resize(L + 1);
          R.Loops[L] = F.Loops[L];
        }
      R.Var = TU.Vars[A.Var];
      R.Function = F.Name;
      R.Block = Block;
      R.Verdict = analyzeAccess(A, F.Loops, R.Var.Shape, R.Var.ElementBytes,
                                Block, *Model);
      for (size_t L : A.Loops)
        if (L < F.Loops.size() && L < R.Verdict.WorstCounters.size())
          R.WorstCounters.push_back(
              {F.Loops[L].Counter, R.Verdict.WorstCounters[L]});
      Out.push_back(std::move(R));
    }
  }
  return Out;
}

KernelReport kernelReportOf(const TranslationUnitFacts &TU,
                            const UnitLayout &Layout, size_t I,
                            const ArchCapacity *Arch, const Limits &Lim,
                            const AnalysisOptions &Opts,
                            std::optional<uint64_t> Registers,
                            std::optional<int> &Carveout) {
  const KernelFacts &KF = TU.Kernels[I];
  KernelLayout L = Layout.layout(I);
  KernelReport K;
  K.Name = KF.Name;
  const bool Relocatable =
      TU.RelocatableDeviceCode && !KF.RelocatableMangled.empty();
  K.Mangled = Relocatable ? KF.RelocatableMangled : KF.Mangled;
  K.NameDiffers =
      describe(KF.NameDiffers.empty() && Relocatable ? TU.ModuleIdCaveat
                                                     : KF.NameDiffers);
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
  K.LinkedFigure = TU.RelocatableDeviceCode;
  K.DynamicDeclared = L.DynamicDeclared;
  for (size_t V : L.Dynamic)
    K.DynamicVars.push_back(TU.Vars[V]);
  for (const Placement &P : L.Placed)
    K.Allocations.push_back(
        {TU.Vars[P.Var], P.Offset, P.SharedWithOtherKernels, P.AtModuleScope});
  for (size_t V : KF.Unreferenced)
    K.Unreferenced.push_back(TU.Vars[V]);
  K.Launches = launchReportsOf(KF, K, Opts);
  K.WorstLaunch = worstLaunch(K.Launches);
  K.Limit = Lim;
  K.Attributes = KF.Attributes;
  K.Bounds = KF.Bounds;
  for (const AttributeCall &A : KF.Attributes) {
    if (A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize)
      K.OptInBytes = A.Value ? std::optional<uint64_t>(*A.Value) : std::nullopt;
    else if (A.Value)
      Carveout = static_cast<int>(*A.Value);
  }
  K.Occupancy = occupancyOf(K, Arch, Registers, Carveout);
  K.Registers = registerTiles(TU, KF, Arch, TU.MaxRegisters);
  K.TensorMemory = tensorMemory(KF, Arch);
  if (!TU.Partial || K.UnitHasErrors)
    K.BankAccesses = bankAccesses(TU, KF, Arch, Opts);
  return K;
}

} // namespace

void analyzeUnit(const TranslationUnitFacts &Facts, const CapacityDatabase &DB,
                 const AnalysisOptions &Opts, Report &Out) {
  // The call-graph stage first: what each kernel reaches, decided here from
  // the raw graph the matchers recorded (CallGraph.h).
  std::optional<TranslationUnitFacts> Resolved;
  if (hasRawCallGraph(Facts)) {
    Resolved = Facts;
    resolveCallGraph(*Resolved);
  }
  const TranslationUnitFacts &TU = Resolved ? *Resolved : Facts;
  UnitReport U = unitReportOf(TU);
  const ArchCapacity *Arch = DB.lookup(TU.Arch);
  if (!TU.Failed) {
    U.ConstantMemory = constantMemory(TU, Arch);
    for (const auto &Check : checks::unitChecks())
      Check->check(TU, U, Opts, Out.Diagnostics);
  }
  Out.Units.push_back(std::move(U));
  if (TU.Failed)
    return;

  const Limits Lim = limitsOf(Arch);
  const std::optional<uint64_t> Registers =
      Opts.Registers ? Opts.Registers : TU.MaxRegisters;
  UnitLayout Layout(TU);
  for (size_t I = 0; I < TU.Kernels.size(); ++I) {
    std::optional<int> Carveout;
    KernelReport K =
        kernelReportOf(TU, Layout, I, Arch, Lim, Opts, Registers, Carveout);
    // The checks, each on the finished figures (model/checks/, registered from
    // Checks.def).
    checks::FitAdvisor Fit(TU, Layout, I);
    const checks::KernelContext Context{Fit, Arch, Opts, Registers, Carveout};
    const checks::Recorder Record = recorder(K, Opts, Out.Diagnostics);
    for (const auto &Check : checks::kernelChecks())
      Check->check(K, Context, Record);
    Out.Kernels.push_back(std::move(K));
  }
}

void checkProgram(const AnalysisOptions &Opts, Report &R) {
  for (const auto &Check : checks::unitChecks())
    Check->checkProgram(Opts, R);
}

void finalizeReport(Report &R) {
  std::stable_sort(R.Units.begin(), R.Units.end(),
                   [](const UnitReport &A, const UnitReport &B) {
                     return std::tie(A.File, A.Arch) < std::tie(B.File, B.Arch);
                   });
  std::stable_sort(R.Kernels.begin(), R.Kernels.end(),
                   [](const KernelReport &A, const KernelReport &B) {
                     return std::tie(A.TranslationUnit, A.Loc.File, A.Loc.Line,
                                     A.Loc.Column, A.Name, A.Arch) <
                            std::tie(B.TranslationUnit, B.Loc.File, B.Loc.Line,
                                     B.Loc.Column, B.Name, B.Arch);
                   });
  auto Less = [](const Diagnostic &A, const Diagnostic &B) {
    return std::tuple_cat(posKey(A.Loc), std::tie(A.Arch, A.Check, A.Message)) <
           std::tuple_cat(posKey(B.Loc), std::tie(B.Arch, B.Check, B.Message));
  };
  // The same finding from two units (a kernel in a shared header) is one
  // finding.
  std::stable_sort(R.Diagnostics.begin(), R.Diagnostics.end(), Less);
  R.Diagnostics.erase(
      std::unique(R.Diagnostics.begin(), R.Diagnostics.end(),
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
