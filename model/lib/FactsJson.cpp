//===- FactsJson.cpp - Translation-unit facts to JSON and back ------------===//
#include "tilefit/model/FactsJson.h"
#include "ReasonJson.h"
#include "tilefit/model/Banks.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace nlohmann {
template <typename T> struct adl_serializer<std::optional<T>> {
  static void to_json(json &J, const std::optional<T> &V) {
    if (V)
      J = *V;
    else
      J = nullptr;
  }
  static void from_json(const json &J, std::optional<T> &V) {
    if (J.is_null())
      V.reset();
    else
      V = J.get<T>();
  }
};
} // namespace nlohmann

namespace tilefit {
namespace {
/// An enumerator the document does not spell as one of the type's (nlohmann's
/// own enum macro reads any such value as the first enumerator).
struct UnknownEnumerator {};
} // namespace

/// Enumerators as strings, both ways; an unknown one (or a value that is not a
/// string) is an error, not the first enumerator.
#define TILEFIT_JSON_ENUM(TYPE, ...)                                           \
  [[maybe_unused]] static void to_json(nlohmann::json &J, const TYPE &E) {     \
    static const std::pair<TYPE, const char *> Names[] = __VA_ARGS__;          \
    for (const auto &[Value, Name] : Names)                                    \
      if (Value == E) {                                                        \
        J = Name;                                                              \
        return;                                                                \
      }                                                                        \
    J = nullptr;                                                               \
  }                                                                            \
  [[maybe_unused]] static void from_json(const nlohmann::json &J, TYPE &E) {   \
    static const std::pair<TYPE, const char *> Names[] = __VA_ARGS__;          \
    if (J.is_string())                                                         \
      for (const auto &[Value, Name] : Names)                                  \
        if (J.get_ref<const std::string &>() == Name) {                        \
          E = Value;                                                           \
          return;                                                              \
        }                                                                      \
    throw UnknownEnumerator{};                                                 \
  }

TILEFIT_JSON_ENUM(EmissionEvent::Kind,
                  {{EmissionEvent::Kind::Variable, "variable"},
                   {EmissionEvent::Kind::Function, "function"},
                   {EmissionEvent::Kind::Instantiate, "instantiate"}})
TILEFIT_JSON_ENUM(
    AttributeCall::Kind,
    {{AttributeCall::Kind::MaxDynamicSharedMemorySize, "max_dynamic"},
     {AttributeCall::Kind::PreferredSharedMemoryCarveout, "carveout"}})
TILEFIT_JSON_ENUM(Severity, {{Severity::Note, "note"},
                             {Severity::Remark, "remark"},
                             {Severity::Warning, "warning"},
                             {Severity::Error, "error"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourcePos, File, Line, Column)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WrittenLiteral, Loc, Length)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WrittenDeclaration, Span, Indent, Element,
                                   Extents)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WrittenLaunch, Bytes, Statement, Indent,
                                   Kernel)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EmissionFacts, Namespaces, DeclOrder)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EmissionEvent, K, Index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EmissionFunction, Name, IsTemplateInstance,
                                   ReturnsAuto, Nested, ContainsLambda,
                                   InsideLambda, Body, Statics)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EmissionProgram, Functions, TopLevel)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SharedVar, Name, Function, QualifiedName,
                                   Loc, Type, ElementType, CanonicalElementType,
                                   Shape, ExtentNames, ExtentLiterals, Written,
                                   ElementBytes, Align, Bytes, UnknownReason,
                                   IsDynamic, KernelLocal, Emission)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LaunchSite, Loc, Form, DynamicBytes,
                                   UnknownReason, BlockThreads, BlockShape,
                                   StatedBy, Written)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AttributeCall, Attribute, Loc, Value,
                                   UnknownReason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LaunchBounds, MaxThreads, MinBlocks, Loc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TmemAllocation, Loc, Form, Function,
                                   CtaGroup, Columns, UnknownReason)
TILEFIT_JSON_ENUM(ErrorTouch::Kind,
                  {{ErrorTouch::Kind::InItsCode, "in_its_code"},
                   {ErrorTouch::Kind::UnbuiltCode, "unbuilt_code"},
                   {ErrorTouch::Kind::NoBody, "no_body"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ErrorTouch, How, Diagnostic)
TILEFIT_JSON_ENUM(ExtentConstraint::Kind,
                  {{ExtentConstraint::Kind::MultipleOf, "multiple_of"},
                   {ExtentConstraint::Kind::DivisorOf, "divisor_of"},
                   {ExtentConstraint::Kind::AtLeast, "at_least"},
                   {ExtentConstraint::Kind::AtMost, "at_most"},
                   {ExtentConstraint::Kind::PowerOfTwo, "power_of_two"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ExtentConstraint, Name, Is, Value)
// The operations by the names the report uses too (Banks.h).
[[maybe_unused]] static void to_json(nlohmann::json &J,
                                     const IndexExpr::Op &O) {
  J = indexOpName(O);
}
[[maybe_unused]] static void from_json(const nlohmann::json &J,
                                       IndexExpr::Op &O) {
  std::optional<IndexExpr::Op> Named;
  if (J.is_string())
    Named = indexOpNamed(J.get<std::string>());
  if (!Named)
    throw UnknownEnumerator{};
  O = *Named;
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IndexExpr::Node, O, Value, A, B, C)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IndexExpr, Nodes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AccessLoop, Loc, Counter, Init, Condition,
                                   Next)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SharedAccess, Loc, Text, Var, Store, Width,
                                   Subscripts, Offset, Guards, Assumed, Loops,
                                   InLoop, NotAnalysable)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FunctionFacts, Name, NoInline, Callees,
                                   SharedRefs, SharedDecls, LocalArrays,
                                   ScopeParents, LocalArrayScopes, CallScopes,
                                   Tmem, UninstantiatedStatements, Accesses,
                                   Loops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BodySlicing, Enabled, Functions, Statements,
                                   Fallback, HeaderRecord)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelFacts, Name, Mangled, NameDiffers,
                                   RelocatableMangled, Loc, InstantiatedAt,
                                   Function, Launches, Attributes, Bounds,
                                   Error, Constraints)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourceFixup, Loc, Rule)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LostLaunch, Loc, Callee, Unresolved, Helper)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Note, Message, Loc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Diagnostic, Level, Check, Message, Loc, Arch,
                                   TranslationUnit, Kernel, PromotedToError,
                                   Figures, Notes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TranslationUnitFacts, File, Arch, ParsedAs,
                                   Jit, MaxRegisters, RelocatableDeviceCode,
                                   Failed, Partial, ParseStopped,
                                   SkippedHostCalls, LineDependent,
                                   ModuleIdCaveat, Slicing, HeaderWalk, Vars,
                                   Kernels, Emission, ConstantVars,
                                   ConstantEmission, LocalArrays, Functions,
                                   Diagnostics, Fixups, LostLaunches)

namespace {
// 2: constant memory, per-thread arrays and Tensor Memory requests. 3: units
// with errors (Partial, ParseStopped, KernelFacts::Error,
// SharedVar::KernelLocal) and source fix-ups. An entry of an earlier schema is
// a miss (it lacks them), never a report without them. 6: SkippedHostCalls,
// KernelFacts::Constraints. 7: the raw call graph (Functions,
// KernelFacts::Function). 9: ModuleIdCaveat. 10: facts only, none of the
// call-graph stage's decisions (KernelFacts::Reached, Unreferenced,
// LocalArrays, TmemAllocations, SharedVar::ReferencedOutOfLine), which the
// model makes again from the raw call graph. 11: Slicing,
// FunctionFacts::UninstantiatedStatements. 12: reasons as kinds with arguments
// (Reasons.def), not sentences. 13: SharedVar::ExtentLiterals. 14:
// SharedVar::Written and LaunchSite::Written, for the `extern __shared__`
// quick fix. 15: FunctionFacts::Accesses and Loops, LaunchSite::BlockShape,
// for the bank analysis. 16: BodySlicing::HeaderRecord. 17: HeaderWalk.
constexpr const char *Schema = "tilefit-facts/17";

/// Every index of \p P refers to one of \p VarCount variables or to one of its
/// functions.
bool consistentProgram(const EmissionProgram &P, size_t VarCount) {
  auto EventOk = [&](const EmissionEvent &E) {
    return E.K == EmissionEvent::Kind::Variable ? E.Index < VarCount
                                                : E.Index < P.Functions.size();
  };
  for (const EmissionEvent &E : P.TopLevel)
    if (!EventOk(E))
      return false;
  for (const EmissionFunction &Fn : P.Functions) {
    for (const EmissionEvent &E : Fn.Body)
      if (!EventOk(E))
        return false;
    for (size_t I : Fn.Statics)
      if (I >= VarCount)
        return false;
  }
  return true;
}

/// Indices into Vars, LocalArrays and Functions must stay in range, or the
/// model would read past them.
bool consistent(const TranslationUnitFacts &F) {
  auto VarOk = [&](size_t I) { return I < F.Vars.size(); };
  for (const KernelFacts &K : F.Kernels) {
    if (K.Error && K.Error->Diagnostic >= F.Diagnostics.size())
      return false;
    if (K.Function && *K.Function >= F.Functions.size())
      return false;
  }
  for (const FunctionFacts &Fn : F.Functions) {
    for (size_t I : Fn.Callees)
      if (I >= F.Functions.size())
        return false;
    for (const std::vector<size_t> *Vs : {&Fn.SharedRefs, &Fn.SharedDecls})
      for (size_t I : *Vs)
        if (!VarOk(I))
          return false;
    for (size_t I : Fn.LocalArrays)
      if (I >= F.LocalArrays.size())
        return false;
    // Scopes come in pre-order: each one's parent before it.
    const size_t Scopes = std::max<size_t>(1, Fn.ScopeParents.size());
    for (size_t I = 0; I < Fn.ScopeParents.size(); ++I)
      if (I ? Fn.ScopeParents[I] >= I : Fn.ScopeParents[I] != 0)
        return false;
    if (!Fn.LocalArrayScopes.empty() &&
        Fn.LocalArrayScopes.size() != Fn.LocalArrays.size())
      return false;
    for (size_t S : Fn.LocalArrayScopes)
      if (S >= Scopes)
        return false;
    for (const auto &[Callee, S] : Fn.CallScopes)
      if (Callee >= F.Functions.size() || S >= Scopes)
        return false;
    for (const SharedAccess &A : Fn.Accesses) {
      if (!VarOk(A.Var))
        return false;
      for (size_t L : A.Loops)
        if (L >= Fn.Loops.size())
          return false;
    }
  }
  return consistentProgram(F.Emission, F.Vars.size()) &&
         consistentProgram(F.ConstantEmission, F.ConstantVars.size());
}
} // namespace

std::string factsToJson(const TranslationUnitFacts &Facts) {
  nlohmann::json J = {{"schema", Schema}, {"facts", Facts}};
  return J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<TranslationUnitFacts> factsFromJson(const std::string &Text) {
  nlohmann::json J =
      nlohmann::json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object() || !J.contains("schema") ||
      !J["schema"].is_string() ||
      J["schema"].get_ref<const std::string &>() != Schema ||
      !J.contains("facts"))
    return std::nullopt;
  try {
    TranslationUnitFacts F = J["facts"].get<TranslationUnitFacts>();
    if (!consistent(F))
      return std::nullopt;
    return F;
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;
  } catch (const UnknownEnumerator &) {
    return std::nullopt;
  }
}

} // namespace tilefit
