//===- ReportJson.cpp - The tilefit-report/1 document, both ways ----------===//
//
// Each part of the report is written and read side by side (as clangd's
// Protocol.cpp keeps each type's toJSON and fromJSON together): a key added to
// one direction is in plain sight of the other. Writing keeps the document's
// key order; reading throws BadField (caught in readJsonReport) with the JSON
// path of a field that is missing or of the wrong type, and accepts the
// optional keys as absent. renderJson(readJsonReport(D)) gives D again.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/ReportJson.h"
#include "ReportFields.h"

#include "tilefit/model/Analysis.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Messages.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <sstream>

namespace tilefit {
namespace {

constexpr const char *Schema = "tilefit-report/1";

using namespace reportfields;

//===--- SharedVar (a variable, an array, a constant) ---------------------===//

/// The variable's own keys; \p Offset written when \p WithOffset. Owners add
/// theirs after.
json variableJson(const SharedVar &V,
                  const std::optional<uint64_t> &Offset = std::nullopt,
                  bool WithOffset = false) {
  json J = {{"name", V.Name}, {"function", V.Function}};
  putPos(J, V.Loc);
  J["type"] = V.Type;
  J["element_type"] = V.ElementType;
  J["canonical_element_type"] = V.CanonicalElementType;
  J["shape"] = V.Shape;
  J["extent_names"] = V.ExtentNames;
  J["element_bytes"] = V.ElementBytes;
  J["align"] = V.Align;
  J["bytes"] = optional(V.Bytes);
  if (WithOffset)
    J["offset"] = optional(Offset);
  if (!V.Bytes && !V.UnknownReason.empty())
    putReason(J, V.Bytes, V.UnknownReason);
  return J;
}
SharedVar variableFrom(const json &J, const std::string &Path) {
  SharedVar V;
  V.Name = str(J, "name", Path);
  V.Function = strOr(J, "function", Path);
  V.QualifiedName = strOr(J, "qualified_name", Path);
  V.Loc = posFrom(J, Path);
  V.Type = strOr(J, "type", Path);
  V.ElementType = strOr(J, "element_type", Path);
  V.CanonicalElementType = strOr(J, "canonical_element_type", Path);
  for (const json &E : arr(J, "shape", Path))
    V.Shape.push_back(unsignedValue(E, Path + ".shape"));
  each(J, "extent_names", Path, [&](const json &E, const std::string &P) {
    if (!E.is_string())
      throw BadField{P, "expected a string"};
    V.ExtentNames.push_back(E.get<std::string>());
  });
  V.ElementBytes = num(J, "element_bytes", Path);
  V.Align = num(J, "align", Path);
  V.Bytes = opt(J, "bytes", Path);
  V.UnknownReason = reasonFrom(J, Path);
  return V;
}

//===--- AllocationReport: a kernel's, or a unit's constant ---------------===//

json allocationJson(const AllocationReport &A) {
  json J = variableJson(A.Var, A.Offset, true);
  J["shared_with_other_kernels"] = A.SharedWithOtherKernels;
  J["module_scope"] = A.AtModuleScope;
  J["qualified_name"] = A.Var.QualifiedName;
  return J;
}
json constantJson(const AllocationReport &A) {
  json J = variableJson(A.Var, A.Offset, true);
  J["qualified_name"] = A.Var.QualifiedName;
  return J;
}
AllocationReport allocationFrom(const json &J, const std::string &Path) {
  AllocationReport A;
  A.Var = variableFrom(J, Path);
  A.Offset = opt(J, "offset", Path);
  A.SharedWithOtherKernels = flag(J, "shared_with_other_kernels", Path);
  A.AtModuleScope = flag(J, "module_scope", Path);
  return A;
}

//===--- RegisterTileReport -----------------------------------------------===//

json registersJson(const RegisterTileReport &R) {
  json Arrays = json::array();
  for (const SharedVar &V : R.Arrays) {
    json J = variableJson(V);
    J["qualified_name"] = V.QualifiedName;
    Arrays.push_back(std::move(J));
  }
  return {
      {"bytes_per_thread", optional(R.BytesPerThread)},
      {"registers_per_thread", optional(R.RegistersPerThread)},
      {"unknown_reason", reasonFor(R.BytesPerThread, R.UnknownReason)},
      {"block_threads", optional(R.BlockThreads)},
      {"bytes_per_block", optional(R.BytesPerBlock)},
      {"registers_per_thread_limit", optional(R.Limit)},
      {"limit_basis", R.Limit ? json(R.LimitBasis) : json(nullptr)},
      {"limit_note", R.LimitNote.empty() ? json(nullptr) : json(R.LimitNote)},
      {"arrays", std::move(Arrays)}};
}
RegisterTileReport registersFrom(const json &G, const std::string &Path) {
  RegisterTileReport R;
  R.BytesPerThread = opt(G, "bytes_per_thread", Path);
  R.RegistersPerThread = opt(G, "registers_per_thread", Path);
  R.UnknownReason = strOr(G, "unknown_reason", Path);
  R.BlockThreads = opt(G, "block_threads", Path);
  R.BytesPerBlock = opt(G, "bytes_per_block", Path);
  R.Limit = opt(G, "registers_per_thread_limit", Path);
  R.LimitBasis = strOr(G, "limit_basis", Path);
  R.LimitNote = strOr(G, "limit_note", Path);
  each(G, "arrays", Path, [&](const json &A, const std::string &P) {
    R.Arrays.push_back(variableFrom(A, P));
  });
  return R;
}

//===--- TensorMemoryReport and its TmemAllocations -----------------------===//

json tmemAllocationJson(const TmemAllocation &A) {
  json J = {{"form", A.Form}, {"function", A.Function}};
  putPos(J, A.Loc);
  J["cta_group"] = A.CtaGroup;
  J["columns"] = optional(A.Columns);
  putReason(J, A.Columns, A.UnknownReason);
  return J;
}
TmemAllocation tmemAllocationFrom(const json &J, const std::string &Path) {
  TmemAllocation A;
  A.Form = strOr(J, "form", Path);
  A.Function = strOr(J, "function", Path);
  A.Loc = posFrom(J, Path);
  A.CtaGroup = static_cast<unsigned>(opt(J, "cta_group", Path).value_or(1));
  A.Columns = opt(J, "columns", Path);
  A.UnknownReason = reasonFrom(J, Path);
  return A;
}

json tensorMemoryJson(const std::optional<TensorMemoryReport> &T) {
  if (!T)
    return nullptr;
  json Allocs = json::array();
  for (const TmemAllocation &A : T->Allocations)
    Allocs.push_back(tmemAllocationJson(A));
  return {{"columns", optional(T->Columns)},
          {"unknown_reason", reasonFor(T->Columns, T->UnknownReason)},
          {"capacity_columns", optional(T->Capacity)},
          {"allocations", std::move(Allocs)}};
}
TensorMemoryReport tensorMemoryFrom(const json &T, const std::string &Path) {
  TensorMemoryReport R;
  R.Columns = opt(T, "columns", Path);
  R.UnknownReason = strOr(T, "unknown_reason", Path);
  R.Capacity = opt(T, "capacity_columns", Path);
  each(T, "allocations", Path, [&](const json &A, const std::string &P) {
    R.Allocations.push_back(tmemAllocationFrom(A, P));
  });
  return R;
}

//===--- ConstantMemoryReport ---------------------------------------------===//

json constantMemoryJson(const std::optional<ConstantMemoryReport> &C) {
  if (!C)
    return nullptr;
  json Vars = json::array();
  for (const AllocationReport &A : C->Variables)
    Vars.push_back(constantJson(A));
  return {{"bytes", optional(C->Bytes)},
          {"unknown_reason", reasonFor(C->Bytes, C->UnknownReason)},
          {"limit", optional(C->Limit)},
          {"relocatable", C->Relocatable},
          {"variables", std::move(Vars)}};
}
ConstantMemoryReport constantMemoryFrom(const json &C,
                                        const std::string &Path) {
  ConstantMemoryReport CM;
  CM.Bytes = opt(C, "bytes", Path);
  CM.UnknownReason = strOr(C, "unknown_reason", Path);
  CM.Limit = opt(C, "limit", Path);
  CM.Relocatable = flag(C, "relocatable", Path);
  each(C, "variables", Path, [&](const json &V, const std::string &P) {
    AllocationReport A;
    A.Var = variableFrom(V, P);
    A.Offset = opt(V, "offset", P);
    CM.Variables.push_back(std::move(A));
  });
  return CM;
}

//===--- SourceFixup ------------------------------------------------------===//

json fixupJson(const SourceFixup &F) {
  json J = posJson(F.Loc);
  J["rule"] = F.Rule;
  return J;
}
SourceFixup fixupFrom(const json &J, const std::string &Path) {
  return {posFrom(J, Path), str(J, "rule", Path)};
}

//===--- UnitReport -------------------------------------------------------===//

/// What body slicing did: CI can see where a unit was instantiated whole, and
/// why (`fallback`, in words, and `fallback_kind`, ReasonJson.h).
json slicingJson(const BodySlicing &S) {
  return {{"enabled", S.Enabled},
          {"functions", S.Functions},
          {"statements", S.Statements},
          {"fallback",
           S.Fallback.empty() ? json(nullptr) : json(describe(S.Fallback))},
          {"fallback_kind", json(S.Fallback)}};
}
BodySlicing slicingFrom(const json &J, const std::string &Path) {
  BodySlicing S;
  S.Enabled = flag(J, "enabled", Path);
  S.Functions = static_cast<unsigned>(opt(J, "functions", Path).value_or(0));
  S.Statements = static_cast<unsigned>(opt(J, "statements", Path).value_or(0));
  if (present(J, "fallback_kind")) {
    try {
      S.Fallback = J.at("fallback_kind").get<Reason>();
    } catch (const nlohmann::json::exception &E) {
      throw BadField{Path + ".fallback_kind", E.what()};
    }
  }
  return S;
}

json unitJson(const UnitReport &U) {
  json Messages = json::array();
  for (const Diagnostic &D : U.Messages)
    Messages.push_back(diagnosticJson(D));
  json Fixups = json::array();
  for (const SourceFixup &F : U.Fixups)
    Fixups.push_back(fixupJson(F));
  return {{"file", U.File},
          {"arch", U.Arch},
          {"parsed_as", U.ParsedAs},
          {"jit", U.Jit},
          {"status", U.Ok        ? "ok"
                     : U.Partial ? "partial"
                                 : "error"},
          {"parse_stopped", U.ParseStopped},
          {"errors_allowed", U.ErrorsAllowed},
          {"messages", std::move(Messages)},
          {"source_fixups", std::move(Fixups)},
          {"constant_memory", constantMemoryJson(U.ConstantMemory)},
          {"body_slicing", slicingJson(U.Slicing)}};
}
UnitReport unitFrom(const json &J, const std::string &Path) {
  UnitReport U;
  U.File = str(J, "file", Path);
  U.Arch = str(J, "arch", Path);
  U.ParsedAs = strOr(J, "parsed_as", Path);
  U.Jit = flag(J, "jit", Path);
  const std::string Status = str(J, "status", Path);
  if (Status != "ok" && Status != "partial" && Status != "error")
    throw BadField{Path + ".status",
                   "expected \"ok\", \"partial\" or \"error\""};
  U.Ok = Status == "ok";
  U.Partial = Status == "partial";
  U.ParseStopped = flag(J, "parse_stopped", Path);
  U.ErrorsAllowed = flag(J, "errors_allowed", Path);
  arr(J, "messages", Path); // required
  each(J, "messages", Path, [&](const json &M, const std::string &P) {
    U.Messages.push_back(diagnosticFrom(M, P));
  });
  each(J, "source_fixups", Path, [&](const json &F, const std::string &P) {
    U.Fixups.push_back(fixupFrom(F, P));
  });
  if (present(J, "constant_memory"))
    U.ConstantMemory =
        constantMemoryFrom(J.at("constant_memory"), Path + ".constant_memory");
  if (present(J, "body_slicing"))
    U.Slicing = slicingFrom(J.at("body_slicing"), Path + ".body_slicing");
  return U;
}

//===--- A kernel's dynamic shared memory: launches, opt-ins --------------===//

json launchJson(const LaunchReport &L) {
  json J = posJson(L.Loc);
  J["bytes"] = optional(L.DynamicBytes);
  J["unknown_reason"] = reasonFor(L.DynamicBytes, L.UnknownReason);
  J["unknown_reason_kind"] =
      L.DynamicBytes ? json(nullptr) : json(L.UnknownReasonKind);
  J["block_threads"] = optional(L.BlockThreads);
  J["total_bytes"] = optional(L.TotalBytes);
  J["stated_by"] = L.StatedBy.empty() ? json(nullptr) : json(L.StatedBy);
  return J;
}
LaunchReport launchFrom(const json &J, const std::string &Path) {
  LaunchReport L;
  L.Loc = posFrom(J, Path);
  L.DynamicBytes = opt(J, "bytes", Path);
  L.UnknownReason = strOr(J, "unknown_reason", Path);
  L.UnknownReasonKind = reasonFrom(J, Path);
  L.BlockThreads = opt(J, "block_threads", Path);
  L.TotalBytes = opt(J, "total_bytes", Path);
  L.StatedBy = strOr(J, "stated_by", Path);
  return L;
}

constexpr const char *MaxDynamicName =
    "cudaFuncAttributeMaxDynamicSharedMemorySize";
constexpr const char *CarveoutName =
    "cudaFuncAttributePreferredSharedMemoryCarveout";

json attributeCallJson(const AttributeCall &A) {
  json J = {{"attribute",
             A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize
                 ? MaxDynamicName
                 : CarveoutName}};
  putPos(J, A.Loc);
  J["value"] = A.Value ? json(*A.Value) : json(nullptr);
  putReason(J, A.Value, A.UnknownReason);
  return J;
}
AttributeCall attributeCallFrom(const json &J, const std::string &Path) {
  AttributeCall C;
  C.Attribute = str(J, "attribute", Path) == MaxDynamicName
                    ? AttributeCall::Kind::MaxDynamicSharedMemorySize
                    : AttributeCall::Kind::PreferredSharedMemoryCarveout;
  C.Loc = posFrom(J, Path);
  if (present(J, "value"))
    C.Value = signedValue(J.at("value"), Path + ".value");
  C.UnknownReason = reasonFrom(J, Path);
  return C;
}

json dynamicJson(const KernelReport &K) {
  json Vars = json::array(), Launches = json::array(), Calls = json::array();
  for (const SharedVar &V : K.DynamicVars)
    Vars.push_back(variableJson(V));
  for (const LaunchReport &L : K.Launches)
    Launches.push_back(launchJson(L));
  for (const AttributeCall &A : K.Attributes)
    Calls.push_back(attributeCallJson(A));
  return {{"declared", K.DynamicDeclared},
          {"variables", std::move(Vars)},
          {"launches", std::move(Launches)},
          {"opt_in_bytes", optional(K.OptInBytes)},
          {"attribute_calls", std::move(Calls)}};
}
void dynamicFrom(const json &Dyn, const std::string &Path, KernelReport &K) {
  K.DynamicDeclared = flag(Dyn, "declared", Path);
  each(Dyn, "variables", Path, [&](const json &V, const std::string &P) {
    K.DynamicVars.push_back(variableFrom(V, P));
  });
  each(Dyn, "launches", Path, [&](const json &L, const std::string &P) {
    K.Launches.push_back(launchFrom(L, P));
  });
  K.WorstLaunch =
      worstLaunch(K.Launches); // derived, as the analysis derives it
  K.OptInBytes = opt(Dyn, "opt_in_bytes", Path);
  each(Dyn, "attribute_calls", Path, [&](const json &A, const std::string &P) {
    K.Attributes.push_back(attributeCallFrom(A, P));
  });
}

//===--- Limits, occupancy, launch bounds ---------------------------------===//

json limitsJson(const Limits &L) {
  return {{"static_max", optional(L.StaticMax)},
          {"block_default_max", optional(L.BlockDefaultMax)},
          {"block_optin_max", optional(L.BlockOptinMax)},
          {"sm_max", optional(L.SmMax)},
          {"reserved_per_block", optional(L.ReservedPerBlock)}};
}
Limits limitsFrom(const json &L, const std::string &Path) {
  Limits K;
  K.StaticMax = opt(L, "static_max", Path);
  K.BlockDefaultMax = opt(L, "block_default_max", Path);
  K.BlockOptinMax = opt(L, "block_optin_max", Path);
  K.SmMax = opt(L, "sm_max", Path);
  K.ReservedPerBlock = opt(L, "reserved_per_block", Path);
  return K;
}

json occupancyJson(const OccupancyReport &O) {
  return {{"block_threads", optional(O.BlockThreads)},
          {"blocks_per_sm", optional(O.BlocksPerSm)},
          {"limited_by", O.BlocksPerSm ? json(O.LimitedBy) : json(nullptr)},
          {"smem_per_block", optional(O.SmemPerBlock)},
          {"smem_per_sm_used", optional(O.SmemPerSmUsed)},
          {"registers", optional(O.Registers)},
          {"unknown_reason", reasonFor(O.BlocksPerSm, O.UnknownReason)}};
}
OccupancyReport occupancyFrom(const json &O, const std::string &Path) {
  OccupancyReport R;
  R.BlockThreads = opt(O, "block_threads", Path);
  R.BlocksPerSm = opt(O, "blocks_per_sm", Path);
  R.LimitedBy = strOr(O, "limited_by", Path);
  R.SmemPerBlock = opt(O, "smem_per_block", Path);
  R.SmemPerSmUsed = opt(O, "smem_per_sm_used", Path);
  R.Registers = opt(O, "registers", Path);
  R.UnknownReason = strOr(O, "unknown_reason", Path);
  return R;
}

json boundsJson(const LaunchBounds &B) {
  json J = {{"max_threads", optional(B.MaxThreads)},
            {"min_blocks", optional(B.MinBlocks)}};
  putPos(J, B.Loc);
  return J;
}
LaunchBounds boundsFrom(const json &B, const std::string &Path) {
  LaunchBounds LB;
  LB.MaxThreads = opt(B, "max_threads", Path);
  LB.MinBlocks = opt(B, "min_blocks", Path);
  LB.Loc = posFrom(B, Path);
  return LB;
}

//===--- BankAccessReport -------------------------------------------------===//

/// An index expression as a tree: {"op": "add", "args": [...]}, leaves with
/// their "value".
json indexJson(const IndexExpr &E, int Node) {
  if (Node < 0 || size_t(Node) >= E.Nodes.size())
    return nullptr;
  const IndexExpr::Node &N = E.Nodes[Node];
  json J = {{"op", indexOpName(N.O)}};
  json Args = json::array();
  for (int Operand : {N.A, N.B, N.C})
    if (Operand >= 0 && Operand < Node)
      Args.push_back(indexJson(E, Operand));
  if (Args.empty())
    J["value"] = N.Value;
  else
    J["args"] = std::move(Args);
  return J;
}
json indexJson(const IndexExpr &E) {
  return E.empty() ? json(nullptr) : indexJson(E, int(E.Nodes.size()) - 1);
}
int indexFrom(const json &J, const std::string &Path, IndexExpr &Out,
              int Depth = 0) {
  if (Depth > 64 || !J.is_object())
    throw BadField{Path, "expected an index expression"};
  auto O = indexOpNamed(str(J, "op", Path));
  if (!O)
    throw BadField{Path + ".op", "unknown operation"};
  IndexExpr::Node N;
  N.O = *O;
  int *Operands[] = {&N.A, &N.B, &N.C};
  size_t I = 0;
  each(J, "args", Path, [&](const json &A, const std::string &P) {
    if (I >= 3)
      throw BadField{P, "at most three operands"};
    *Operands[I++] = indexFrom(A, P, Out, Depth + 1);
  });
  if (J.contains("value"))
    N.Value = signedValue(J.at("value"), Path + ".value");
  Out.Nodes.push_back(N);
  return int(Out.Nodes.size()) - 1;
}
IndexExpr indexFrom(const json &J, const std::string &Path) {
  IndexExpr E;
  if (!J.is_null())
    indexFrom(J, Path, E);
  return E;
}

json bankAccessJson(const BankAccessReport &B) {
  const SharedAccess &A = B.Access;
  const BankVerdict &V = B.Verdict;
  json J = {{"variable", B.Var.Name}};
  putPos(J, A.Loc);
  J["text"] = A.Text;
  J["function"] = B.Function;
  J["kind"] = A.Store ? "store" : "load";
  J["width_bytes"] = A.Width;
  J["in_loop"] = A.InLoop;
  J["analysed"] = V.Analysed;
  J["not_analysed_reason"] = V.Analysed ? json(nullptr) : json(describe(V.Why));
  J["not_analysed_reason_kind"] = V.Analysed ? json(nullptr) : json(V.Why);
  J["block"] = {{"shape", B.Block.Dim},
                {"known", B.Block.Known},
                {"source", B.Block.Source}};
  J["degree"] = V.Degree;
  J["lanes_per_phase"] = V.LanesPerPhase;
  J["wavefronts"] = V.Wavefronts;
  J["every_warp"] = V.EveryWarp;
  J["warps"] = V.Warps;
  J["requests"] = V.Requests;
  J["conflicted_requests"] = V.Conflicted;
  json Counters = json::object();
  for (const auto &[Name, Value] : B.WorstCounters)
    Counters[Name] = Value;
  J["worst"] = {{"warp", V.WorstWarp},
                {"bank", V.WorstBank},
                {"active_lanes", V.ActiveLanes},
                {"counters", std::move(Counters)}};
  J["assumed"] = A.Assumed;
  // The address as tilefit evaluates it: subscripts with their strides (the
  // variable's shape), a byte offset, the conditions, the loops.
  json Subscripts = json::array(), Guards = json::array();
  for (const IndexExpr &E : A.Subscripts)
    Subscripts.push_back(indexJson(E));
  for (const IndexExpr &E : A.Guards)
    Guards.push_back(indexJson(E));
  // Loops by the index their counters have in the expressions.
  json Loops = json::object();
  for (size_t L : A.Loops)
    if (L < B.Loops.size())
      Loops[std::to_string(L)] = {
          {"counter", B.Loops[L].Counter},
          {"init", indexJson(B.Loops[L].Init)},
          {"condition", indexJson(B.Loops[L].Condition)},
          {"next", indexJson(B.Loops[L].Next)}};
  J["address"] = {{"shape", B.Var.Shape},
                  {"element_bytes", B.Var.ElementBytes},
                  {"subscripts", std::move(Subscripts)},
                  {"offset", indexJson(A.Offset)},
                  {"guards", std::move(Guards)},
                  {"loops", std::move(Loops)}};
  return J;
}
BankAccessReport bankAccessFrom(const json &J, const std::string &Path) {
  BankAccessReport B;
  SharedAccess &A = B.Access;
  BankVerdict &V = B.Verdict;
  B.Var.Name = str(J, "variable", Path);
  A.Loc = posFrom(J, Path);
  A.Text = strOr(J, "text", Path);
  B.Function = strOr(J, "function", Path);
  A.Store = str(J, "kind", Path) == "store";
  A.Width = unsigned(num(J, "width_bytes", Path));
  A.InLoop = flag(J, "in_loop", Path);
  V.Analysed = flag(J, "analysed", Path);
  if (!V.Analysed && present(J, "not_analysed_reason_kind")) {
    json Kind = json::object();
    Kind["unknown_reason_kind"] = J.at("not_analysed_reason_kind");
    V.Why = reasonFrom(Kind, Path);
  }
  const json &Block = at(J, "block", Path);
  size_t I = 0;
  for (const json &D : arr(Block, "shape", Path + ".block"))
    if (I < 3)
      B.Block.Dim[I++] = unsignedValue(D, Path + ".block.shape");
  B.Block.Known = flag(Block, "known", Path + ".block");
  B.Block.Source = strOr(Block, "source", Path + ".block");
  V.Degree = unsigned(num(J, "degree", Path));
  V.LanesPerPhase = unsigned(num(J, "lanes_per_phase", Path));
  for (const json &W : arr(J, "wavefronts", Path))
    V.Wavefronts.push_back(unsigned(unsignedValue(W, Path + ".wavefronts")));
  V.EveryWarp = flag(J, "every_warp", Path);
  V.Warps = num(J, "warps", Path);
  V.Requests = num(J, "requests", Path);
  V.Conflicted = num(J, "conflicted_requests", Path);
  const json &Worst = at(J, "worst", Path);
  V.WorstWarp = num(Worst, "warp", Path + ".worst");
  V.WorstBank = unsigned(num(Worst, "bank", Path + ".worst"));
  V.ActiveLanes = unsigned(num(Worst, "active_lanes", Path + ".worst"));
  const json &Counters = at(Worst, "counters", Path + ".worst");
  if (!Counters.is_object())
    throw BadField{Path + ".worst.counters", "expected an object"};
  for (auto It = Counters.begin(); It != Counters.end(); ++It)
    B.WorstCounters.push_back(
        {It.key(), signedValue(It.value(), Path + ".worst.counters")});
  each(J, "assumed", Path, [&](const json &E, const std::string &P) {
    if (!E.is_string())
      throw BadField{P, "expected a string"};
    A.Assumed.push_back(E.get<std::string>());
  });
  const json &Address = at(J, "address", Path);
  const std::string AddressPath = Path + ".address";
  for (const json &D : arr(Address, "shape", AddressPath))
    B.Var.Shape.push_back(unsignedValue(D, AddressPath + ".shape"));
  B.Var.ElementBytes = num(Address, "element_bytes", AddressPath);
  each(Address, "subscripts", AddressPath,
       [&](const json &E, const std::string &P) {
         A.Subscripts.push_back(indexFrom(E, P));
       });
  A.Offset = indexFrom(at(Address, "offset", AddressPath), AddressPath);
  each(Address, "guards", AddressPath,
       [&](const json &E, const std::string &P) {
         A.Guards.push_back(indexFrom(E, P));
       });
  if (present(Address, "loops")) {
    const json &Loops = Address.at("loops");
    if (!Loops.is_object())
      throw BadField{AddressPath + ".loops", "expected an object"};
    for (auto It = Loops.begin(); It != Loops.end(); ++It) {
      const std::string P = AddressPath + ".loops." + It.key();
      size_t L = 0;
      try {
        L = std::stoul(It.key());
      } catch (...) {
        throw BadField{P, "expected a loop's index"};
      }
      if (L > 4096)
        throw BadField{P, "loop index out of range"};
      if (B.Loops.size() <= L)
        B.Loops.resize(L + 1);
      B.Loops[L].Counter = str(It.value(), "counter", P);
      B.Loops[L].Init = indexFrom(at(It.value(), "init", P), P + ".init");
      B.Loops[L].Condition =
          indexFrom(at(It.value(), "condition", P), P + ".condition");
      B.Loops[L].Next = indexFrom(at(It.value(), "next", P), P + ".next");
      A.Loops.push_back(L);
    }
  }
  return B;
}

//===--- KernelReport -----------------------------------------------------===//

json kernelJson(const KernelReport &K) {
  json Allocs = json::array(), Unused = json::array();
  for (const AllocationReport &A : K.Allocations)
    Allocs.push_back(allocationJson(A));
  for (const SharedVar &V : K.Unreferenced)
    Unused.push_back(variableJson(V));
  json J = {{"name", K.Name}, {"mangled", K.Mangled}};
  // Where the mangled name may not be ptxas's, why (for joins by name).
  J["name_differs_from_nvcc"] =
      K.NameDiffers.empty() ? json(nullptr) : json(K.NameDiffers);
  putPos(J, K.Loc);
  J["translation_unit"] = K.TranslationUnit;
  J["arch"] = K.Arch;
  J["parsed_as"] = K.ParsedAs;
  J["jit"] = K.Jit;
  J["static_smem_bytes"] = optional(K.StaticBytes);
  // Whose figure it is: ptxas's, or, with -rdc, the device-linked program's.
  J["static_smem_source"] = K.LinkedFigure ? "nvlink" : "ptxas";
  J["unknown_reason"] = reasonFor(K.StaticBytes, K.UnknownReason);
  J["dynamic_smem"] = dynamicJson(K);
  J["allocations"] = std::move(Allocs);
  J["unreferenced"] = std::move(Unused);
  J["limits"] = limitsJson(K.Limit);
  J["occupancy"] = occupancyJson(K.Occupancy);
  // Derived, not read back: blocks_per_sm is only shared memory's bound.
  if (K.Occupancy.BlocksPerSm)
    J["occupancy"]["upper_bound"] = occupancyIsUpperBound(K);
  J["registers"] = registersJson(K.Registers);
  J["tensor_memory"] = tensorMemoryJson(K.TensorMemory);
  if (K.Bounds)
    J["launch_bounds"] = boundsJson(*K.Bounds);
  if (K.InstantiatedAt)
    J["instantiated_at"] = posJson(*K.InstantiatedAt);
  if (K.RoundedTo)
    J["rounded_to"] = *K.RoundedTo;
  if (K.UnitHasErrors)
    J["unit_has_errors"] = true;
  if (!K.BankAccesses.empty()) {
    json Banks = json::array();
    for (const BankAccessReport &B : K.BankAccesses)
      Banks.push_back(bankAccessJson(B));
    J["bank_accesses"] = std::move(Banks);
  }
  return J;
}
KernelReport kernelFrom(const json &J, const std::string &Path) {
  KernelReport K;
  K.Name = str(J, "name", Path);
  K.Mangled = str(J, "mangled", Path);
  K.NameDiffers = strOr(J, "name_differs_from_nvcc", Path);
  K.Loc = posFrom(J, Path);
  K.TranslationUnit = strOr(J, "translation_unit", Path);
  K.Arch = str(J, "arch", Path);
  K.ParsedAs = strOr(J, "parsed_as", Path);
  K.Jit = flag(J, "jit", Path);
  K.StaticBytes = opt(J, "static_smem_bytes", Path);
  K.LinkedFigure = strOr(J, "static_smem_source", Path) == "nvlink";
  K.UnknownReason = strOr(J, "unknown_reason", Path);
  dynamicFrom(at(J, "dynamic_smem", Path), Path + ".dynamic_smem", K);
  arr(J, "allocations", Path); // required
  each(J, "allocations", Path, [&](const json &A, const std::string &P) {
    K.Allocations.push_back(allocationFrom(A, P));
  });
  each(J, "unreferenced", Path, [&](const json &V, const std::string &P) {
    K.Unreferenced.push_back(variableFrom(V, P));
  });
  K.Limit = limitsFrom(at(J, "limits", Path), Path + ".limits");
  if (J.contains("occupancy"))
    K.Occupancy = occupancyFrom(J.at("occupancy"), Path + ".occupancy");
  if (present(J, "registers"))
    K.Registers = registersFrom(J.at("registers"), Path + ".registers");
  if (present(J, "tensor_memory"))
    K.TensorMemory =
        tensorMemoryFrom(J.at("tensor_memory"), Path + ".tensor_memory");
  if (J.contains("launch_bounds"))
    K.Bounds = boundsFrom(J.at("launch_bounds"), Path + ".launch_bounds");
  if (J.contains("instantiated_at"))
    K.InstantiatedAt =
        posFrom(J.at("instantiated_at"), Path + ".instantiated_at");
  K.RoundedTo = opt(J, "rounded_to", Path);
  K.UnitHasErrors = flag(J, "unit_has_errors", Path);
  each(J, "bank_accesses", Path, [&](const json &B, const std::string &P) {
    K.BankAccesses.push_back(bankAccessFrom(B, P));
  });
  return K;
}

//===--- Report -----------------------------------------------------------===//

json reportJson(const Report &R, const ToolInfo &Tool) {
  json Doc;
  Doc["schema"] = Schema;
  Doc["tool"] = {{"name", Tool.Name}, {"version", Tool.Version}};
  Doc["source_root"] = R.SourceRoot;
  json Units = json::array(), Kernels = json::array(), Diags = json::array(),
       ToolMessages = json::array();
  for (const UnitReport &U : R.Units)
    Units.push_back(unitJson(U));
  for (const KernelReport &K : R.Kernels)
    Kernels.push_back(kernelJson(K));
  for (const Diagnostic &D : R.Diagnostics)
    Diags.push_back(diagnosticJson(D));
  for (const Diagnostic &D : R.ToolMessages)
    ToolMessages.push_back(diagnosticJson(D));
  Doc["translation_units"] = std::move(Units);
  Doc["kernels"] = std::move(Kernels);
  Doc["diagnostics"] = std::move(Diags);
  Doc["tool_messages"] = std::move(ToolMessages);
  return Doc;
}
Report reportFrom(const json &Doc) {
  Report R;
  if (!Doc.is_object() || !Doc.contains("schema") || Doc.at("schema") != Schema)
    throw BadField{"schema", std::string("expected \"") + Schema + "\""};
  R.SourceRoot = strOr(Doc, "source_root", "");
  // The top level's paths are the keys themselves: `kernels[3].name`.
  auto Top = [](const std::string &P) { return P.substr(1); };
  arr(Doc, "translation_units", "");
  each(Doc, "translation_units", "", [&](const json &U, const std::string &P) {
    R.Units.push_back(unitFrom(U, Top(P)));
  });
  arr(Doc, "kernels", "");
  each(Doc, "kernels", "", [&](const json &K, const std::string &P) {
    R.Kernels.push_back(kernelFrom(K, Top(P)));
  });
  arr(Doc, "diagnostics", "");
  each(Doc, "diagnostics", "", [&](const json &D, const std::string &P) {
    R.Diagnostics.push_back(diagnosticFrom(D, Top(P)));
  });
  each(Doc, "tool_messages", "", [&](const json &D, const std::string &P) {
    R.ToolMessages.push_back(diagnosticFrom(D, Top(P)));
  });
  // Derived, as the model derives them: the worst finding per kernel (the
  // summary's marks).
  markWorstFindings(R);
  return R;
}

} // namespace

void renderJson(const Report &R, const ToolInfo &Tool, std::ostream &OS) {
  OS << reportJson(R, Tool).dump(2, ' ', false,
                                 nlohmann::json::error_handler_t::replace)
     << "\n";
}

Result<Report> readJsonReport(std::string_view Text,
                              const std::string &Origin) {
  json Doc;
  try {
    Doc = json::parse(Text.begin(), Text.end());
  } catch (const json::parse_error &E) {
    size_t Offset = std::min<size_t>(E.byte ? E.byte - 1 : 0, Text.size());
    unsigned Line = 1, Col = 1;
    for (size_t I = 0; I < Offset; ++I)
      Text[I] == '\n' ? (++Line, Col = 1) : ++Col;
    return ErrorMessage{Origin + ":" + std::to_string(Line) + ":" +
                        std::to_string(Col) + ": not valid JSON"};
  } catch (const json::exception &E) {
    // A number too large for a double (out_of_range.406) is not a parse_error.
    return ErrorMessage{Origin + ": not valid JSON: " + E.what()};
  }
  try {
    return reportFrom(Doc);
  } catch (const BadField &B) {
    return ErrorMessage{Origin + ": " +
                        (B.Path.empty() ? "(top level)" : B.Path) + ": " +
                        B.Problem + " (not a tilefit JSON report?)"};
  } catch (const json::exception &E) {
    return ErrorMessage{Origin + ": not a tilefit JSON report: " + E.what()};
  }
}

Result<Report> loadJsonReport(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return ErrorMessage{Path + ": cannot read the report"};
  std::stringstream SS;
  SS << In.rdbuf();
  return readJsonReport(SS.str(), Path);
}

} // namespace tilefit
