//===- JsonReporter.cpp ---------------------------------------------------===//
#include "tilefit/reporters/JsonReporter.h"

#include "tilefit/model/Checks.h"

#include <nlohmann/json.hpp>

namespace tilefit {
namespace {

using json = nlohmann::ordered_json;

json optional(const std::optional<uint64_t> &V) { return V ? json(*V) : json(nullptr); }

json note(const Note &N) {
  return {{"message", N.Message}, {"file", N.Loc.File}, {"line", N.Loc.Line},
          {"column", N.Loc.Column}};
}

json diagnostic(const Diagnostic &D) {
  json Notes = json::array();
  for (const Note &N : D.Notes)
    Notes.push_back(note(N));
  json Figures = json::object();
  for (const auto &[Name, Value] : D.Figures)
    Figures[Name] = Value;
  json J = {{"severity", std::string(severityName(D.Level))},
            {"check", D.Check},
            {"message", D.Message},
            {"file", D.Loc.File},
            {"line", D.Loc.Line},
            {"column", D.Loc.Column},
            {"arch", D.Arch},
            {"kernel", D.Kernel},
            {"translation_unit", D.TranslationUnit},
            {"figures", std::move(Figures)},
            {"notes", std::move(Notes)}};
  if (D.PromotedToError)
    J["warning_as_error"] = true;
  return J;
}

json variable(const SharedVar &V, const std::optional<uint64_t> &Offset, bool WithOffset) {
  json J = {{"name", V.Name},
            {"function", V.Function},
            {"file", V.Loc.File},
            {"line", V.Loc.Line},
            {"column", V.Loc.Column},
            {"type", V.Type},
            {"element_type", V.ElementType},
            {"canonical_element_type", V.CanonicalElementType},
            {"shape", V.Shape},
            {"extent_names", V.ExtentNames},
            {"element_bytes", V.ElementBytes},
            {"align", V.Align},
            {"bytes", optional(V.Bytes)}};
  if (WithOffset)
    J["offset"] = optional(Offset);
  if (!V.Bytes && !V.UnknownReason.empty())
    J["unknown_reason"] = V.UnknownReason;
  return J;
}

json registers(const RegisterTileReport &R) {
  json Arrays = json::array();
  for (const SharedVar &V : R.Arrays) {
    json J = variable(V, std::nullopt, false);
    J["qualified_name"] = V.QualifiedName;
    Arrays.push_back(std::move(J));
  }
  return {{"bytes_per_thread", optional(R.BytesPerThread)},
          {"registers_per_thread", optional(R.RegistersPerThread)},
          {"unknown_reason", R.BytesPerThread ? json(nullptr) : json(R.UnknownReason)},
          {"block_threads", optional(R.BlockThreads)},
          {"bytes_per_block", optional(R.BytesPerBlock)},
          {"registers_per_thread_limit", optional(R.Limit)},
          {"limit_basis", R.Limit ? json(R.LimitBasis) : json(nullptr)},
          {"limit_note", R.LimitNote.empty() ? json(nullptr) : json(R.LimitNote)},
          {"arrays", std::move(Arrays)}};
}

json tensorMemory(const std::optional<TensorMemoryReport> &T) {
  if (!T)
    return nullptr;
  json Allocs = json::array();
  for (const TmemAllocation &A : T->Allocations)
    Allocs.push_back({{"form", A.Form},
                      {"function", A.Function},
                      {"file", A.Loc.File},
                      {"line", A.Loc.Line},
                      {"column", A.Loc.Column},
                      {"cta_group", A.CtaGroup},
                      {"columns", optional(A.Columns)},
                      {"unknown_reason", A.Columns ? json(nullptr) : json(A.UnknownReason)}});
  return {{"columns", optional(T->Columns)},
          {"unknown_reason", T->Columns ? json(nullptr) : json(T->UnknownReason)},
          {"capacity_columns", optional(T->Capacity)},
          {"allocations", std::move(Allocs)}};
}

json constantMemory(const std::optional<ConstantMemoryReport> &C) {
  if (!C)
    return nullptr;
  json Vars = json::array();
  for (const AllocationReport &A : C->Variables) {
    json J = variable(A.Var, A.Offset, true);
    J["qualified_name"] = A.Var.QualifiedName;
    Vars.push_back(std::move(J));
  }
  return {{"bytes", optional(C->Bytes)},
          {"unknown_reason", C->Bytes ? json(nullptr) : json(C->UnknownReason)},
          {"limit", optional(C->Limit)},
          {"relocatable", C->Relocatable},
          {"variables", std::move(Vars)}};
}

} // namespace

void renderJson(const Report &R, const ToolInfo &Tool, std::ostream &OS) {
  json Doc;
  Doc["schema"] = "tilefit-report/1";
  Doc["tool"] = {{"name", Tool.Name}, {"version", Tool.Version}};
  Doc["source_root"] = R.SourceRoot;

  json Units = json::array();
  for (const UnitReport &U : R.Units) {
    json Messages = json::array();
    for (const Diagnostic &D : U.Messages)
      Messages.push_back(diagnostic(D));
    json Fixups = json::array();
    for (const SourceFixup &F : U.Fixups)
      Fixups.push_back({{"file", F.Loc.File},
                        {"line", F.Loc.Line},
                        {"column", F.Loc.Column},
                        {"rule", F.Rule}});
    Units.push_back({{"file", U.File},
                     {"arch", U.Arch},
                     {"parsed_as", U.ParsedAs},
                     {"jit", U.Jit},
                     {"status", U.Ok ? "ok" : U.Partial ? "partial" : "error"},
                     {"parse_stopped", U.ParseStopped},
                     {"errors_allowed", U.ErrorsAllowed},
                     {"messages", std::move(Messages)},
                     {"source_fixups", std::move(Fixups)},
                     {"constant_memory", constantMemory(U.ConstantMemory)}});
  }
  Doc["translation_units"] = std::move(Units);

  json Kernels = json::array();
  for (const KernelReport &K : R.Kernels) {
    json Allocs = json::array();
    for (const AllocationReport &A : K.Allocations) {
      json J = variable(A.Var, A.Offset, true);
      J["shared_with_other_kernels"] = A.SharedWithOtherKernels;
      J["module_scope"] = A.AtModuleScope;
      J["qualified_name"] = A.Var.QualifiedName;
      Allocs.push_back(std::move(J));
    }
    json Dynamic = {{"declared", K.DynamicDeclared}};
    json DynVars = json::array();
    for (const SharedVar &V : K.DynamicVars)
      DynVars.push_back(variable(V, std::nullopt, false));
    Dynamic["variables"] = std::move(DynVars);
    json Launches = json::array();
    for (const LaunchReport &L : K.Launches)
      Launches.push_back({{"file", L.Loc.File},
                          {"line", L.Loc.Line},
                          {"column", L.Loc.Column},
                          {"bytes", optional(L.DynamicBytes)},
                          {"unknown_reason", L.DynamicBytes ? json(nullptr) : json(L.UnknownReason)},
                          {"block_threads", optional(L.BlockThreads)},
                          {"total_bytes", optional(L.TotalBytes)}});
    Dynamic["launches"] = std::move(Launches);
    Dynamic["opt_in_bytes"] = optional(K.OptInBytes);
    json Calls = json::array();
    for (const AttributeCall &A : K.Attributes)
      Calls.push_back({{"attribute", A.Attribute == AttributeCall::Kind::MaxDynamicSharedMemorySize
                                         ? "cudaFuncAttributeMaxDynamicSharedMemorySize"
                                         : "cudaFuncAttributePreferredSharedMemoryCarveout"},
                       {"file", A.Loc.File},
                       {"line", A.Loc.Line},
                       {"column", A.Loc.Column},
                       {"value", A.Value ? json(*A.Value) : json(nullptr)},
                       {"unknown_reason", A.Value ? json(nullptr) : json(A.UnknownReason)}});
    Dynamic["attribute_calls"] = std::move(Calls);
    json Unused = json::array();
    for (const SharedVar &V : K.Unreferenced)
      Unused.push_back(variable(V, std::nullopt, false));
    json Kj = {{"name", K.Name},
               {"mangled", K.Mangled},
               {"file", K.Loc.File},
               {"line", K.Loc.Line},
               {"column", K.Loc.Column},
               {"translation_unit", K.TranslationUnit},
               {"arch", K.Arch},
               {"parsed_as", K.ParsedAs},
               {"jit", K.Jit},
               {"static_smem_bytes", optional(K.StaticBytes)},
               {"unknown_reason", K.StaticBytes ? json(nullptr) : json(K.UnknownReason)},
               {"dynamic_smem", std::move(Dynamic)},
               {"allocations", std::move(Allocs)},
               {"unreferenced", std::move(Unused)},
               {"limits",
                {{"static_max", optional(K.Limit.StaticMax)},
                 {"block_default_max", optional(K.Limit.BlockDefaultMax)},
                 {"block_optin_max", optional(K.Limit.BlockOptinMax)},
                 {"sm_max", optional(K.Limit.SmMax)},
                 {"reserved_per_block", optional(K.Limit.ReservedPerBlock)}}}};
    const OccupancyReport &O = K.Occupancy;
    Kj["occupancy"] = {{"block_threads", optional(O.BlockThreads)},
                       {"blocks_per_sm", optional(O.BlocksPerSm)},
                       {"limited_by", O.BlocksPerSm ? json(O.LimitedBy) : json(nullptr)},
                       {"smem_per_block", optional(O.SmemPerBlock)},
                       {"smem_per_sm_used", optional(O.SmemPerSmUsed)},
                       {"registers", optional(O.Registers)},
                       {"unknown_reason", O.BlocksPerSm ? json(nullptr) : json(O.UnknownReason)}};
    Kj["registers"] = registers(K.Registers);
    Kj["tensor_memory"] = tensorMemory(K.TensorMemory);
    if (K.Bounds)
      Kj["launch_bounds"] = {{"max_threads", optional(K.Bounds->MaxThreads)},
                             {"min_blocks", optional(K.Bounds->MinBlocks)},
                             {"file", K.Bounds->Loc.File},
                             {"line", K.Bounds->Loc.Line},
                             {"column", K.Bounds->Loc.Column}};
    if (K.InstantiatedAt)
      Kj["instantiated_at"] = {{"file", K.InstantiatedAt->File},
                               {"line", K.InstantiatedAt->Line},
                               {"column", K.InstantiatedAt->Column}};
    if (K.RoundedTo)
      Kj["rounded_to"] = *K.RoundedTo;
    if (K.UnitHasErrors)
      Kj["unit_has_errors"] = true;
    Kernels.push_back(std::move(Kj));
  }
  Doc["kernels"] = std::move(Kernels);

  json Diags = json::array();
  for (const Diagnostic &D : R.Diagnostics)
    Diags.push_back(diagnostic(D));
  Doc["diagnostics"] = std::move(Diags);
  json ToolMessages = json::array();
  for (const Diagnostic &D : R.ToolMessages)
    ToolMessages.push_back(diagnostic(D));
  Doc["tool_messages"] = std::move(ToolMessages);
  OS << Doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

} // namespace tilefit
