//===- JsonReader.cpp -----------------------------------------------------===//
#include "tilefit/reporters/JsonReader.h"

#include "tilefit/model/Analysis.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <sstream>

namespace tilefit {
namespace {

using json = nlohmann::ordered_json;

/// Thrown (and caught in readJsonReport) with the JSON path of a field that is missing or of
/// the wrong type.
struct BadField {
  std::string Path, Problem;
};

class Reader {
public:
  const json &at(const json &J, const char *Key, const std::string &Path) {
    if (!J.is_object() || !J.contains(Key))
      throw BadField{Path + "." + Key, "missing"};
    return J.at(Key);
  }
  std::string str(const json &J, const char *Key, const std::string &Path) {
    const json &V = at(J, Key, Path);
    if (!V.is_string())
      throw BadField{Path + "." + Key, "expected a string"};
    return V.get<std::string>();
  }
  std::string strOr(const json &J, const char *Key, const std::string &Path) {
    if (!J.contains(Key) || J.at(Key).is_null())
      return "";
    return str(J, Key, Path);
  }
  uint64_t num(const json &J, const char *Key, const std::string &Path) {
    return unsignedValue(at(J, Key, Path), Path + "." + Key);
  }
  /// An integer that fits in 64 bits without sign. A number with a fraction or an exponent is
  /// refused: converting one out of range would be undefined (found by fuzz_json_report).
  static uint64_t unsignedValue(const json &V, const std::string &Where) {
    if (!V.is_number_unsigned() && !(V.is_number_integer() && V.get<int64_t>() >= 0))
      throw BadField{Where, "expected a non-negative integer"};
    return V.get<uint64_t>();
  }
  /// An integer that fits in 64 bits with a sign.
  static int64_t signedValue(const json &V, const std::string &Where) {
    if (!V.is_number_integer() ||
        (V.is_number_unsigned() &&
         V.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
      throw BadField{Where, "expected an integer"};
    return V.get<int64_t>();
  }
  std::optional<uint64_t> opt(const json &J, const char *Key, const std::string &Path) {
    if (!J.contains(Key) || J.at(Key).is_null())
      return std::nullopt;
    return num(J, Key, Path);
  }
  bool flag(const json &J, const char *Key, const std::string &Path) {
    if (!J.contains(Key))
      return false;
    if (!J.at(Key).is_boolean())
      throw BadField{Path + "." + Key, "expected true or false"};
    return J.at(Key).get<bool>();
  }
  const json &arr(const json &J, const char *Key, const std::string &Path) {
    const json &V = at(J, Key, Path);
    if (!V.is_array())
      throw BadField{Path + "." + Key, "expected an array"};
    return V;
  }
  SourcePos pos(const json &J, const std::string &Path) {
    SourcePos P;
    P.File = strOr(J, "file", Path);
    P.Line = static_cast<unsigned>(opt(J, "line", Path).value_or(0));
    P.Column = static_cast<unsigned>(opt(J, "column", Path).value_or(0));
    return P;
  }

  Severity severity(const std::string &S, const std::string &Path) {
    if (S == "error")
      return Severity::Error;
    if (S == "warning")
      return Severity::Warning;
    if (S == "remark")
      return Severity::Remark;
    if (S == "note")
      return Severity::Note;
    throw BadField{Path, "unknown severity '" + S + "'"};
  }

  Diagnostic diagnostic(const json &J, const std::string &Path) {
    Diagnostic D;
    D.Level = severity(str(J, "severity", Path), Path + ".severity");
    D.Check = str(J, "check", Path);
    D.Message = str(J, "message", Path);
    D.Loc = pos(J, Path);
    D.Arch = strOr(J, "arch", Path);
    D.Kernel = strOr(J, "kernel", Path);
    D.TranslationUnit = strOr(J, "translation_unit", Path);
    D.PromotedToError = flag(J, "warning_as_error", Path);
    if (J.contains("figures") && J.at("figures").is_object())
      for (auto It = J.at("figures").begin(); It != J.at("figures").end(); ++It)
        D.Figures.push_back({It.key(), num(J.at("figures"), It.key().c_str(), Path + ".figures")});
    const json &Notes = arr(J, "notes", Path);
    for (size_t I = 0; I < Notes.size(); ++I) {
      std::string NP = Path + ".notes[" + std::to_string(I) + "]";
      D.Notes.push_back({str(Notes[I], "message", NP), pos(Notes[I], NP)});
    }
    return D;
  }

  SharedVar variable(const json &J, const std::string &Path) {
    SharedVar V;
    V.Name = str(J, "name", Path);
    V.Function = strOr(J, "function", Path);
    V.QualifiedName = strOr(J, "qualified_name", Path);
    V.Loc = pos(J, Path);
    V.Type = strOr(J, "type", Path);
    V.ElementType = strOr(J, "element_type", Path);
    V.CanonicalElementType = strOr(J, "canonical_element_type", Path);
    for (const json &E : arr(J, "shape", Path))
      V.Shape.push_back(unsignedValue(E, Path + ".shape"));
    if (J.contains("extent_names"))
      for (const json &E : arr(J, "extent_names", Path))
        V.ExtentNames.push_back(E.get<std::string>());
    V.ElementBytes = num(J, "element_bytes", Path);
    V.Align = num(J, "align", Path);
    V.Bytes = opt(J, "bytes", Path);
    V.UnknownReason = strOr(J, "unknown_reason", Path);
    return V;
  }

  KernelReport kernel(const json &J, const std::string &Path) {
    KernelReport K;
    K.Name = str(J, "name", Path);
    K.Mangled = str(J, "mangled", Path);
    K.Loc = pos(J, Path);
    K.TranslationUnit = strOr(J, "translation_unit", Path);
    K.Arch = str(J, "arch", Path);
    K.ParsedAs = strOr(J, "parsed_as", Path);
    K.Jit = flag(J, "jit", Path);
    K.StaticBytes = opt(J, "static_smem_bytes", Path);
    K.UnknownReason = strOr(J, "unknown_reason", Path);
    K.RoundedTo = opt(J, "rounded_to", Path);
    if (J.contains("unit_has_errors"))
      K.UnitHasErrors = flag(J, "unit_has_errors", Path);
    if (J.contains("instantiated_at"))
      K.InstantiatedAt = pos(J.at("instantiated_at"), Path + ".instantiated_at");
    const json &Dyn = at(J, "dynamic_smem", Path);
    const std::string DP = Path + ".dynamic_smem";
    K.DynamicDeclared = flag(Dyn, "declared", DP);
    if (Dyn.contains("variables"))
      for (const json &V : arr(Dyn, "variables", DP))
        K.DynamicVars.push_back(variable(V, DP + ".variables"));
    if (Dyn.contains("launches")) {
      const json &Ls = arr(Dyn, "launches", DP);
      for (size_t I = 0; I < Ls.size(); ++I) {
        std::string LP = DP + ".launches[" + std::to_string(I) + "]";
        LaunchReport L;
        L.Loc = pos(Ls[I], LP);
        L.DynamicBytes = opt(Ls[I], "bytes", LP);
        L.UnknownReason = strOr(Ls[I], "unknown_reason", LP);
        L.BlockThreads = opt(Ls[I], "block_threads", LP);
        L.TotalBytes = opt(Ls[I], "total_bytes", LP);
        K.Launches.push_back(std::move(L));
      }
      K.WorstLaunch = worstLaunch(K.Launches);
    }
    K.OptInBytes = opt(Dyn, "opt_in_bytes", DP);
    if (Dyn.contains("attribute_calls"))
      for (const json &A : arr(Dyn, "attribute_calls", DP)) {
        AttributeCall C;
        C.Attribute = str(A, "attribute", DP) == "cudaFuncAttributeMaxDynamicSharedMemorySize"
                          ? AttributeCall::Kind::MaxDynamicSharedMemorySize
                          : AttributeCall::Kind::PreferredSharedMemoryCarveout;
        C.Loc = pos(A, DP);
        if (A.contains("value") && !A.at("value").is_null())
          C.Value = signedValue(A.at("value"), DP + ".value");
        C.UnknownReason = strOr(A, "unknown_reason", DP);
        K.Attributes.push_back(std::move(C));
      }
    const json &Allocs = arr(J, "allocations", Path);
    for (size_t I = 0; I < Allocs.size(); ++I) {
      std::string AP = Path + ".allocations[" + std::to_string(I) + "]";
      AllocationReport A;
      A.Var = variable(Allocs[I], AP);
      A.Offset = opt(Allocs[I], "offset", AP);
      A.SharedWithOtherKernels = flag(Allocs[I], "shared_with_other_kernels", AP);
      A.AtModuleScope = flag(Allocs[I], "module_scope", AP);
      K.Allocations.push_back(std::move(A));
    }
    if (J.contains("unreferenced"))
      for (const json &V : arr(J, "unreferenced", Path))
        K.Unreferenced.push_back(variable(V, Path + ".unreferenced"));
    const json &L = at(J, "limits", Path);
    K.Limit.StaticMax = opt(L, "static_max", Path + ".limits");
    K.Limit.BlockDefaultMax = opt(L, "block_default_max", Path + ".limits");
    K.Limit.BlockOptinMax = opt(L, "block_optin_max", Path + ".limits");
    K.Limit.SmMax = opt(L, "sm_max", Path + ".limits");
    K.Limit.ReservedPerBlock = opt(L, "reserved_per_block", Path + ".limits");
    if (J.contains("occupancy")) {
      const json &O = J.at("occupancy");
      std::string OP = Path + ".occupancy";
      K.Occupancy.BlockThreads = opt(O, "block_threads", OP);
      K.Occupancy.BlocksPerSm = opt(O, "blocks_per_sm", OP);
      K.Occupancy.LimitedBy = strOr(O, "limited_by", OP);
      K.Occupancy.SmemPerBlock = opt(O, "smem_per_block", OP);
      K.Occupancy.SmemPerSmUsed = opt(O, "smem_per_sm_used", OP);
      K.Occupancy.Registers = opt(O, "registers", OP);
      K.Occupancy.UnknownReason = strOr(O, "unknown_reason", OP);
    }
    if (J.contains("registers") && !J.at("registers").is_null()) {
      const json &G = J.at("registers");
      const std::string GP = Path + ".registers";
      RegisterTileReport &R = K.Registers;
      R.BytesPerThread = opt(G, "bytes_per_thread", GP);
      R.RegistersPerThread = opt(G, "registers_per_thread", GP);
      R.UnknownReason = strOr(G, "unknown_reason", GP);
      R.BlockThreads = opt(G, "block_threads", GP);
      R.BytesPerBlock = opt(G, "bytes_per_block", GP);
      R.Limit = opt(G, "registers_per_thread_limit", GP);
      R.LimitBasis = strOr(G, "limit_basis", GP);
      R.LimitNote = strOr(G, "limit_note", GP);
      if (G.contains("arrays")) {
        const json &As = arr(G, "arrays", GP);
        for (size_t I = 0; I < As.size(); ++I)
          R.Arrays.push_back(variable(As[I], GP + ".arrays[" + std::to_string(I) + "]"));
      }
    }
    if (J.contains("tensor_memory") && !J.at("tensor_memory").is_null()) {
      const json &T = J.at("tensor_memory");
      const std::string TP = Path + ".tensor_memory";
      TensorMemoryReport R;
      R.Columns = opt(T, "columns", TP);
      R.UnknownReason = strOr(T, "unknown_reason", TP);
      R.Capacity = opt(T, "capacity_columns", TP);
      if (T.contains("allocations")) {
        const json &As = arr(T, "allocations", TP);
        for (size_t I = 0; I < As.size(); ++I) {
          const std::string AP = TP + ".allocations[" + std::to_string(I) + "]";
          TmemAllocation A;
          A.Form = strOr(As[I], "form", AP);
          A.Function = strOr(As[I], "function", AP);
          A.Loc = pos(As[I], AP);
          A.CtaGroup = static_cast<unsigned>(opt(As[I], "cta_group", AP).value_or(1));
          A.Columns = opt(As[I], "columns", AP);
          A.UnknownReason = strOr(As[I], "unknown_reason", AP);
          R.Allocations.push_back(std::move(A));
        }
      }
      K.TensorMemory = std::move(R);
    }
    if (J.contains("launch_bounds")) {
      const json &B = J.at("launch_bounds");
      LaunchBounds LB;
      LB.MaxThreads = opt(B, "max_threads", Path + ".launch_bounds");
      LB.MinBlocks = opt(B, "min_blocks", Path + ".launch_bounds");
      LB.Loc = pos(B, Path + ".launch_bounds");
      K.Bounds = LB;
    }
    return K;
  }

  Report report(const json &Doc) {
    Report R;
    if (!Doc.is_object() || !Doc.contains("schema") || Doc.at("schema") != "tilefit-report/1")
      throw BadField{"schema", "expected \"tilefit-report/1\""};
    R.SourceRoot = strOr(Doc, "source_root", "");
    const json &Units = arr(Doc, "translation_units", "");
    for (size_t I = 0; I < Units.size(); ++I) {
      std::string P = "translation_units[" + std::to_string(I) + "]";
      UnitReport U;
      U.File = str(Units[I], "file", P);
      U.Arch = str(Units[I], "arch", P);
      U.ParsedAs = strOr(Units[I], "parsed_as", P);
      U.Jit = flag(Units[I], "jit", P);
      const std::string Status = str(Units[I], "status", P);
      if (Status != "ok" && Status != "partial" && Status != "error")
        throw BadField{P + ".status", "expected \"ok\", \"partial\" or \"error\""};
      U.Ok = Status == "ok";
      U.Partial = Status == "partial";
      if (Units[I].contains("parse_stopped"))
        U.ParseStopped = flag(Units[I], "parse_stopped", P);
      if (Units[I].contains("errors_allowed"))
        U.ErrorsAllowed = flag(Units[I], "errors_allowed", P);
      if (Units[I].contains("source_fixups")) {
        const json &Fs = arr(Units[I], "source_fixups", P);
        for (size_t F = 0; F < Fs.size(); ++F) {
          const std::string FP = P + ".source_fixups[" + std::to_string(F) + "]";
          SourceFixup X;
          X.Loc = pos(Fs[F], FP);
          X.Rule = str(Fs[F], "rule", FP);
          U.Fixups.push_back(std::move(X));
        }
      }
      const json &Msgs = arr(Units[I], "messages", P);
      for (size_t M = 0; M < Msgs.size(); ++M)
        U.Messages.push_back(diagnostic(Msgs[M], P + ".messages[" + std::to_string(M) + "]"));
      if (Units[I].contains("constant_memory") && !Units[I].at("constant_memory").is_null()) {
        const json &C = Units[I].at("constant_memory");
        const std::string CP = P + ".constant_memory";
        ConstantMemoryReport CM;
        CM.Bytes = opt(C, "bytes", CP);
        CM.UnknownReason = strOr(C, "unknown_reason", CP);
        CM.Limit = opt(C, "limit", CP);
        CM.Relocatable = flag(C, "relocatable", CP);
        if (C.contains("variables")) {
          const json &Vs = arr(C, "variables", CP);
          for (size_t V = 0; V < Vs.size(); ++V) {
            const std::string VP = CP + ".variables[" + std::to_string(V) + "]";
            AllocationReport A;
            A.Var = variable(Vs[V], VP);
            A.Offset = opt(Vs[V], "offset", VP);
            CM.Variables.push_back(std::move(A));
          }
        }
        U.ConstantMemory = std::move(CM);
      }
      R.Units.push_back(std::move(U));
    }
    const json &Kernels = arr(Doc, "kernels", "");
    for (size_t I = 0; I < Kernels.size(); ++I)
      R.Kernels.push_back(kernel(Kernels[I], "kernels[" + std::to_string(I) + "]"));
    const json &Diags = arr(Doc, "diagnostics", "");
    for (size_t I = 0; I < Diags.size(); ++I)
      R.Diagnostics.push_back(diagnostic(Diags[I], "diagnostics[" + std::to_string(I) + "]"));
    if (Doc.contains("tool_messages")) {
      const json &T = arr(Doc, "tool_messages", "");
      for (size_t I = 0; I < T.size(); ++I)
        R.ToolMessages.push_back(diagnostic(T[I], "tool_messages[" + std::to_string(I) + "]"));
    }
    // The worst finding per kernel, for the summary's marks.
    markWorstFindings(R);
    return R;
  }
};

} // namespace

Result<Report> readJsonReport(std::string_view Text, const std::string &Origin) {
  json Doc;
  try {
    Doc = json::parse(Text.begin(), Text.end());
  } catch (const json::parse_error &E) {
    size_t Offset = std::min<size_t>(E.byte ? E.byte - 1 : 0, Text.size());
    unsigned Line = 1, Col = 1;
    for (size_t I = 0; I < Offset; ++I)
      Text[I] == '\n' ? (++Line, Col = 1) : ++Col;
    return ErrorMessage{Origin + ":" + std::to_string(Line) + ":" + std::to_string(Col) +
                        ": not valid JSON"};
  } catch (const json::exception &E) {
    // A number too large for a double (out_of_range.406) is not a parse_error.
    return ErrorMessage{Origin + ": not valid JSON: " + E.what()};
  }
  try {
    return Reader().report(Doc);
  } catch (const BadField &B) {
    return ErrorMessage{Origin + ": " + (B.Path.empty() ? "(top level)" : B.Path) + ": " +
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
