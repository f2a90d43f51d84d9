//===- fuzz_layout.cpp - The model's arithmetic on random shapes ----------===//
//
// The first byte picks what is fed random numbers:
//   0  a translation unit's facts (variables with random sizes, alignments,
//   shapes and
//      emission walks; kernels with random launches, opt-ins and launch
//      bounds), analysed against the built-in capacity database, with every
//      check on (Layout, Analysis)
//   1  the occupancy calculation with a random architecture and launch
//   (Occupancy) 2  the footprint calculator with random tiles, types, versions
//   and threads (Calc) 3  the overflow-checked arithmetic and byte formatting
//   (Units)
// Every figure must either be right or be unknown with a reason: the sanitizers
// catch the arithmetic that is neither (overflow, division by zero, reads out
// of bounds).
//
//===----------------------------------------------------------------------===//
#include "FuzzInput.h"

#include "tilefit/model/Analysis.h"
#include "tilefit/model/ByteUnits.h"
#include "tilefit/model/Calc.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/reporters/CalcReporter.h"

#include <cstdlib>
#include <sstream>

using namespace tilefit;
using fuzz::FuzzInput;

namespace {

const CapacityDatabase &builtIn() {
  static const CapacityDatabase Db = [] {
    auto R = CapacityDatabase::load(TILEFIT_FUZZ_DATA_DIR "/capacity.json");
    if (!R)
      std::abort();
    return *R;
  }();
  return Db;
}

std::optional<uint64_t> maybe(FuzzInput &In) {
  if (In.byte() % 4 == 0)
    return std::nullopt;
  return In.count();
}

/// A database figure: the loader (Capacity.cpp) rejects numbers above 2^40.
std::optional<uint64_t> maybeLimit(FuzzInput &In) {
  std::optional<uint64_t> V = maybe(In);
  if (V)
    *V %= (uint64_t(1) << 40) + 1;
  return V;
}

SharedVar randomVar(FuzzInput &In, size_t I, unsigned Namespaces) {
  SharedVar V;
  V.Name = "v" + std::to_string(I);
  V.QualifiedName = V.Name;
  V.Loc = {"/p/k.cu", unsigned(1 + I), 5};
  V.Type = "float[]";
  V.ElementType = V.CanonicalElementType = "float";
  unsigned Dims = In.byte() % 4;
  for (unsigned D = 0; D < Dims; ++D) {
    V.Shape.push_back(In.count());
    V.ExtentNames.push_back(In.flag() ? "N" + std::to_string(D) : "");
  }
  V.ElementBytes =
      In.byte() % 3 == 0 ? In.count() : uint64_t(1) << (In.byte() % 5);
  // The front end gives alignments of at least 1 (alignof), powers of two.
  V.Align = uint64_t(1) << (In.byte() % 64);
  if (In.byte() % 8 == 0) {
    V.UnknownReason = ReasonKind::TypeDependent;
  } else {
    V.Bytes = In.count();
  }
  V.IsDynamic = In.byte() % 5 == 0;
  V.ReferencedOutOfLine = In.byte() % 7 == 0;
  unsigned Depth = Namespaces ? In.byte() % 3 : 0;
  for (unsigned D = 0; D < Depth; ++D)
    V.Emission.Namespaces.push_back(In.byte() % Namespaces);
  V.Emission.DeclOrder = In.bits(2);
  return V;
}

SourcePos pos(FuzzInput &In) {
  return {"/p/k.cu", unsigned(In.byte() % 40), 1};
}

/// An emission walk whose indices are in range, as the front end writes it.
void randomWalk(FuzzInput &In, EmissionProgram &P, size_t Vars) {
  size_t NFuncs = In.byte() % 6;
  for (size_t F = 0; F < NFuncs; ++F) {
    EmissionFunction Fn;
    Fn.Name = "f" + std::to_string(F);
    uint8_t Bits = In.byte();
    Fn.IsTemplateInstance = Bits & 1;
    Fn.ReturnsAuto = Bits & 2;
    Fn.Nested = Bits & 4;
    Fn.ContainsLambda = Bits & 8;
    Fn.InsideLambda = Bits & 16;
    size_t NStatics = Vars ? In.byte() % 3 : 0;
    for (size_t S = 0; S < NStatics; ++S)
      Fn.Statics.push_back(In.byte() % Vars);
    P.Functions.push_back(Fn);
  }
  auto Event = [&]() {
    EmissionEvent E;
    uint8_t K = In.byte() % 3;
    E.K = K == 0   ? EmissionEvent::Kind::Variable
          : K == 1 ? EmissionEvent::Kind::Function
                   : EmissionEvent::Kind::Instantiate;
    size_t Bound = E.K == EmissionEvent::Kind::Variable ? Vars : NFuncs;
    if (Bound == 0)
      return std::optional<EmissionEvent>();
    E.Index = In.byte() % Bound;
    return std::optional<EmissionEvent>(E);
  };
  for (size_t F = 0; F < NFuncs; ++F) {
    size_t NEvents = In.byte() % 4;
    for (size_t E = 0; E < NEvents; ++E)
      if (auto Ev = Event())
        P.Functions[F].Body.push_back(*Ev);
  }
  size_t NTop = In.byte() % 8;
  for (size_t E = 0; E < NTop; ++E)
    if (auto Ev = Event())
      P.TopLevel.push_back(*Ev);
}

/// Kernel \p K of \p TU with random reached variables, launches, opt-ins,
/// bounds and Tensor Memory requests.
KernelFacts randomKernel(FuzzInput &In, const TranslationUnitFacts &TU,
                         size_t K) {
  KernelFacts KF;
  KF.Name = "k" + std::to_string(K);
  KF.Mangled = "_Z2k" + std::to_string(K) + "v";
  KF.Loc = pos(In);
  if (In.flag())
    KF.InstantiatedAt = pos(In);
  for (size_t V = 0; V < TU.Vars.size(); ++V) {
    uint8_t B = In.byte() % 4;
    if (B == 0)
      KF.Reached.push_back(V);
    else if (B == 1)
      KF.Unreferenced.push_back(V);
  }
  for (size_t V = 0; V < TU.LocalArrays.size(); ++V)
    if (In.flag())
      KF.LocalArrays.push_back(V);
  size_t NLaunches = In.byte() % 3;
  for (size_t L = 0; L < NLaunches; ++L) {
    LaunchSite S;
    S.Loc = pos(In);
    S.Form = "<<<>>>";
    S.DynamicBytes = maybe(In);
    if (!S.DynamicBytes)
      S.UnknownReason = ReasonKind::DynamicSizeNotFound;
    S.BlockThreads = maybe(In);
    KF.Launches.push_back(S);
  }
  size_t NAttrs = In.byte() % 3;
  for (size_t A = 0; A < NAttrs; ++A) {
    AttributeCall C;
    C.Attribute = In.flag()
                      ? AttributeCall::Kind::MaxDynamicSharedMemorySize
                      : AttributeCall::Kind::PreferredSharedMemoryCarveout;
    C.Loc = pos(In);
    if (In.flag())
      C.Value = static_cast<int64_t>(In.bits(8));
    else
      C.UnknownReason = Reason::resting(ReasonKind::AttributeValueNotConstant,
                                        ReasonKind::ValueAtRunTime);
    KF.Attributes.push_back(C);
  }
  if (In.flag())
    KF.Bounds = LaunchBounds{maybe(In), maybe(In), pos(In)};
  size_t NTmem = In.byte() % 3;
  for (size_t T = 0; T < NTmem; ++T) {
    TmemAllocation A;
    A.Loc = pos(In);
    A.Form = "tcgen05.alloc";
    A.CtaGroup = 1 + In.byte() % 2;
    A.Columns = maybe(In);
    if (!A.Columns)
      A.UnknownReason = ReasonKind::CallNoColumnArgument;
    KF.TmemAllocations.push_back(A);
  }
  return KF;
}

void randomUnit(FuzzInput &In) {
  TranslationUnitFacts TU;
  TU.File = "/p/k.cu";
  static const char *const Archs[] = {"sm_75",  "sm_80",   "sm_86",  "sm_90",
                                      "sm_90a", "sm_100a", "sm_120", "sm_1"};
  TU.Arch = Archs[In.byte() % 8];
  TU.ParsedAs = TU.Arch;
  TU.Jit = In.flag();
  if (In.flag())
    TU.MaxRegisters = In.count();
  TU.RelocatableDeviceCode = In.flag();

  size_t NVars = In.byte() % 12;
  unsigned Namespaces = In.byte() % 4;
  for (size_t I = 0; I < NVars; ++I)
    TU.Vars.push_back(randomVar(In, I, Namespaces));
  size_t NConst = In.byte() % 4;
  for (size_t I = 0; I < NConst; ++I)
    TU.ConstantVars.push_back(randomVar(In, I, Namespaces));
  size_t NLocal = In.byte() % 4;
  for (size_t I = 0; I < NLocal; ++I)
    TU.LocalArrays.push_back(randomVar(In, I, 0));

  randomWalk(In, TU.Emission, TU.Vars.size());
  randomWalk(In, TU.ConstantEmission, TU.ConstantVars.size());
  // Leaving out the functions that cannot place a variable changes no order.
  {
    EmissionProgram Pruned = TU.Emission;
    pruneEmission(Pruned);
    if (emissionOrder(TU.Vars, Pruned) != emissionOrder(TU.Vars, TU.Emission))
      std::abort();
  }

  size_t NKernels = 1 + In.byte() % 4;
  for (size_t K = 0; K < NKernels; ++K)
    TU.Kernels.push_back(randomKernel(In, TU, K));

  UnitLayout L(TU);
  for (size_t K = 0; K < TU.Kernels.size(); ++K) {
    (void)L.layout(K);
    if (!TU.Vars.empty())
      (void)L.layoutWith(K, In.byte() % TU.Vars.size(), In.count());
  }

  AnalysisOptions Opts;
  Opts.Budget = double(In.byte()) / 255;
  if (In.flag())
    Opts.Registers = In.count();
  if (In.flag())
    Opts.KernelBudgets.push_back({"k*", maybe(In), std::nullopt});
  if (In.flag())
    Opts.KernelBudgets.push_back({"*", std::nullopt, double(In.byte()) / 128});
  Report R;
  analyzeUnit(TU, builtIn(), Opts, R);
  finalizeReport(R);
  (void)worstSeverity(R);
}

void randomOccupancy(FuzzInput &In) {
  ArchCapacity A;
  A.Name = "sm_x";
  std::optional<uint64_t> *Fields[] = {
      &A.SharedPerSm,        &A.BlockDefaultMax,   &A.BlockOptinMax,
      &A.StaticMax,          &A.ReservedPerBlock,  &A.AllocGranularity,
      &A.UnifiedL1Shared,    &A.RegistersPerSm,    &A.RegistersPerBlock,
      &A.RegistersPerThread, &A.RegisterAllocUnit, &A.RegisterSubPartitions,
      &A.WarpSize,           &A.ThreadsPerBlock,   &A.ThreadsPerSm,
      &A.WarpsPerSm,         &A.BlocksPerSm};
  for (std::optional<uint64_t> *F : Fields)
    *F = maybeLimit(In);
  if (In.flag())
    A.OptinSupported = In.flag();
  size_t Steps = In.byte() % 4;
  for (size_t S = 0; S < Steps; ++S)
    A.CarveoutSteps.push_back(In.count() % ((uint64_t(1) << 40) + 1));
  OccupancyInput O;
  O.BlockThreads = In.count();
  O.Registers = In.count();
  O.StaticBytes = In.count();
  O.DynamicBytes = In.count();
  O.OptInBytes = maybe(In);
  if (In.flag())
    O.CarveoutPercent = static_cast<int>(In.bits(4));
  auto R = computeOccupancy(A, O);
  if (R)
    (void)limitNames(R->LimitedBy);
  // And the same launch on a real architecture.
  const std::vector<std::string> Names = builtIn().names();
  if (!Names.empty())
    if (const ArchCapacity *Real =
            builtIn().lookup(Names[In.byte() % Names.size()]))
      (void)computeOccupancy(*Real, O);
}

void randomCalc(FuzzInput &In) {
  CalcRequest Req;
  size_t Dims = In.byte() % 5;
  for (size_t D = 0; D < Dims; ++D)
    Req.Tile.push_back(In.count());
  const std::vector<ElementType> &Types = elementTypes();
  Req.DType = In.byte() % 16 == 0 ? In.string(12)
                                  : Types[In.byte() % Types.size()].Name;
  Req.Versions = In.count();
  if (In.flag())
    Req.Threads = In.count();
  static const CalcScope Scopes[] = {CalcScope::Shared, CalcScope::Registers,
                                     CalcScope::Tmem};
  Req.Scope = Scopes[In.byte() % 3];
  const std::vector<std::string> Names = builtIn().names();
  uint8_t Where = In.byte() % 4;
  if (Where == 1 && !Names.empty())
    Req.Arch = Names[In.byte() % Names.size()];
  else if (Where == 2)
    Req.Capacity = In.count();
  else if (Where == 3)
    Req.Arch = In.string(8);
  auto R = calculate(Req, &builtIn());
  if (!R)
    return;
  std::ostringstream Out;
  renderCalcText(*R, Out);
  renderCalcJson(*R, Out);
  renderCalcArithmetic(*R, Out);
}

void randomUnits(FuzzInput &In) {
  uint64_t A = In.count(), B = In.count();
  (void)humanBytes(A);
  (void)checkedMul(A, B);
  (void)checkedAdd(A, B);
  (void)alignUp(A, B);
  std::string Text = In.string(24);
  (void)parseCalcNumber("tile dimension", Text);
  (void)findElementType(Text);
  (void)parseCalcScope(Text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  FuzzInput In(Data, Size);
  switch (In.byte() % 4) {
  case 0:
    randomUnit(In);
    break;
  case 1:
    randomOccupancy(In);
    break;
  case 2:
    randomCalc(In);
    break;
  default:
    randomUnits(In);
    break;
  }
  return 0;
}
