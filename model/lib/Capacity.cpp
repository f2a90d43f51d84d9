//===- Capacity.cpp - Loading the capacity database -----------------------===//
//
// The JSON format is described in data/README.md. Every field is optional;
// unknown keys are errors (a misspelt limit must not silently fall back to the
// built-in value). An entry may name another with "inherits"; inheritance is
// resolved after every merge, so a user database that overrides sm_90 also
// changes sm_90a when sm_90a only inherits.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Capacity.h"

#include "tilefit/model/Arch.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace tilefit {
namespace {

using json = nlohmann::json;

/// Numbers above this are rejected as absurd (1 TiB; no on-chip limit comes
/// near it).
constexpr uint64_t MaxPlausible = uint64_t(1) << 40;

/// The numeric fields: JSON group, key, and the member they fill.
struct NumericField {
  const char *Group;
  const char *Key;
  std::optional<uint64_t> ArchCapacity::*Member;
};

const NumericField NumericFields[] = {
    {"shared_memory", "per_sm", &ArchCapacity::SharedPerSm},
    {"shared_memory", "block_default_max", &ArchCapacity::BlockDefaultMax},
    {"shared_memory", "block_optin_max", &ArchCapacity::BlockOptinMax},
    {"shared_memory", "static_max", &ArchCapacity::StaticMax},
    {"shared_memory", "reserved_per_block", &ArchCapacity::ReservedPerBlock},
    {"shared_memory", "allocation_granularity",
     &ArchCapacity::AllocGranularity},
    {"shared_memory", "unified_l1_shared", &ArchCapacity::UnifiedL1Shared},
    {"registers", "per_sm", &ArchCapacity::RegistersPerSm},
    {"registers", "per_block", &ArchCapacity::RegistersPerBlock},
    {"registers", "per_thread", &ArchCapacity::RegistersPerThread},
    {"registers", "allocation_unit", &ArchCapacity::RegisterAllocUnit},
    {"registers", "sub_partitions", &ArchCapacity::RegisterSubPartitions},
    {"threads", "warp_size", &ArchCapacity::WarpSize},
    {"threads", "per_block", &ArchCapacity::ThreadsPerBlock},
    {"threads", "per_sm", &ArchCapacity::ThreadsPerSm},
    {"threads", "warps_per_sm", &ArchCapacity::WarpsPerSm},
    {"threads", "blocks_per_sm", &ArchCapacity::BlocksPerSm},
    {"constant_memory", "bytes", &ArchCapacity::ConstantBytes},
    {"tensor_memory", "columns", &ArchCapacity::TensorMemoryColumns},
    {"tensor_memory", "min_allocation_columns",
     &ArchCapacity::TensorMemoryMinAllocColumns},
    {"shared_memory_banks", "banks", &ArchCapacity::Banks},
    {"shared_memory_banks", "bank_bytes", &ArchCapacity::BankBytes},
    {"shared_memory_banks", "phases_8_byte", &ArchCapacity::BankPhases8Byte},
    {"shared_memory_banks", "phases_16_byte", &ArchCapacity::BankPhases16Byte},
};

/// What one architecture entry of one file says: the fields it sets (by
/// "group.key"), and the entry it inherits from.
struct Entry {
  ArchCapacity Values;
  std::set<std::string> Set;
  std::string Inherits;
};

std::string describe(const json &J) {
  switch (J.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  case json::value_t::number_float:
    return "a fractional number";
  case json::value_t::number_integer:
    return J.get<int64_t>() < 0 ? "a negative number" : "an integer";
  default:
    return "a number";
  }
}

/// Builds the message "FILE: KEY: PROBLEM".
ErrorMessage fieldError(const std::string &Origin, const std::string &Key,
                        const std::string &Problem) {
  return ErrorMessage{Origin + ": " + Key + ": " + Problem};
}

std::optional<ErrorMessage> readNumber(const json &J, const std::string &Origin,
                                       const std::string &Key,
                                       std::optional<uint64_t> &Out) {
  if (J.is_null()) {
    Out.reset();
    return std::nullopt;
  }
  if (!J.is_number_unsigned() &&
      !(J.is_number_integer() && J.get<int64_t>() >= 0))
    return fieldError(
        Origin, Key,
        "expected a non-negative integer (bytes or a count) or null, got " +
            describe(J));
  uint64_t V = J.get<uint64_t>();
  if (V > MaxPlausible)
    return fieldError(Origin, Key,
                      std::to_string(V) +
                          " is not a plausible on-chip limit (above 2^40)");
  Out = V;
  return std::nullopt;
}

std::optional<ErrorMessage> parseEntry(const json &J, const std::string &Origin,
                                       const std::string &Name, Entry &E) {
  const std::string Prefix = "architectures." + Name;
  if (!J.is_object())
    return fieldError(Origin, Prefix, "expected an object, got " + describe(J));
  E.Values.Name = Name;
  for (auto It = J.begin(); It != J.end(); ++It) {
    const std::string &Key = It.key();
    const std::string Path = Prefix + "." + Key;
    if (Key == "compute_capability") {
      if (!It->is_string())
        return fieldError(Origin, Path,
                          "expected a string such as \"9.0\", got " +
                              describe(*It));
      E.Values.ComputeCapability = It->get<std::string>();
      E.Set.insert(Key);
    } else if (Key == "inherits") {
      if (!It->is_string())
        return fieldError(Origin, Path,
                          "expected an architecture name, got " +
                              describe(*It));
      E.Inherits = It->get<std::string>();
    } else if (Key == "sources" || Key == "notes") {
      if (!It->is_string())
        return fieldError(Origin, Path,
                          "expected a string, got " + describe(*It));
    } else if (It->is_object()) {
      bool KnownGroup = false;
      for (const NumericField &F : NumericFields)
        KnownGroup |= Key == F.Group;
      if (!KnownGroup)
        return fieldError(Origin, Path, "unknown key");
      for (auto Sub = It->begin(); Sub != It->end(); ++Sub) {
        const std::string Field = Key + "." + Sub.key();
        const std::string SubPath = Path + "." + Sub.key();
        if (Field == "shared_memory.optin_supported") {
          if (Sub->is_null())
            E.Values.OptinSupported.reset();
          else if (Sub->is_boolean())
            E.Values.OptinSupported = Sub->get<bool>();
          else
            return fieldError(Origin, SubPath,
                              "expected true, false or null, got " +
                                  describe(*Sub));
          E.Set.insert(Field);
          continue;
        }
        if (Field == "shared_memory_banks.source") {
          if (!Sub->is_string())
            return fieldError(Origin, SubPath,
                              "expected a string, got " + describe(*Sub));
          E.Values.BankSource = Sub->get<std::string>();
          E.Set.insert(Field);
          continue;
        }
        if (Field == "shared_memory.carveout_steps_kib") {
          if (!Sub->is_array())
            return fieldError(Origin, SubPath,
                              "expected an array of KiB values, got " +
                                  describe(*Sub));
          E.Values.CarveoutSteps.clear();
          for (size_t I = 0; I < Sub->size(); ++I) {
            std::optional<uint64_t> KiB;
            const std::string ElemPath =
                SubPath + "[" + std::to_string(I) + "]";
            if (auto Err = readNumber((*Sub)[I], Origin, ElemPath, KiB))
              return Err;
            if (!KiB)
              return fieldError(Origin, ElemPath,
                                "expected a number of KiB, got null");
            if (!E.Values.CarveoutSteps.empty() &&
                *KiB * 1024 <= E.Values.CarveoutSteps.back())
              return fieldError(Origin, ElemPath,
                                "carveout steps must be increasing");
            E.Values.CarveoutSteps.push_back(*KiB * 1024);
          }
          E.Set.insert(Field);
          continue;
        }
        const NumericField *Match = nullptr;
        for (const NumericField &F : NumericFields)
          if (Key == F.Group && Sub.key() == F.Key)
            Match = &F;
        if (!Match)
          return fieldError(Origin, SubPath, "unknown key");
        if (auto Err =
                readNumber(*Sub, Origin, SubPath, E.Values.*(Match->Member)))
          return Err;
        E.Set.insert(Field);
      }
    } else {
      return fieldError(Origin, Path, "unknown key");
    }
  }
  return std::nullopt;
}

/// Copies the fields \p From sets onto \p To.
void overlay(const Entry &From, ArchCapacity &To) {
  for (const NumericField &F : NumericFields)
    if (From.Set.count(std::string(F.Group) + "." + F.Key))
      To.*(F.Member) = From.Values.*(F.Member);
  if (From.Set.count("compute_capability"))
    To.ComputeCapability = From.Values.ComputeCapability;
  if (From.Set.count("shared_memory.optin_supported"))
    To.OptinSupported = From.Values.OptinSupported;
  if (From.Set.count("shared_memory.carveout_steps_kib"))
    To.CarveoutSteps = From.Values.CarveoutSteps;
  if (From.Set.count("shared_memory_banks.source"))
    To.BankSource = From.Values.BankSource;
}

/// Consistency between fields of one resolved entry.
std::optional<ErrorMessage> checkConsistency(const ArchCapacity &C,
                                             const std::string &Origin) {
  auto Less = [&](const std::optional<uint64_t> &Small, const char *SmallKey,
                  const std::optional<uint64_t> &Big,
                  const char *BigKey) -> std::optional<ErrorMessage> {
    if (Small && Big && *Small > *Big)
      return fieldError(Origin, "architectures." + C.Name + "." + SmallKey,
                        std::to_string(*Small) + " is larger than " + BigKey +
                            " (" + std::to_string(*Big) + ")");
    return std::nullopt;
  };
  if (auto E = Less(C.BlockDefaultMax, "shared_memory.block_default_max",
                    C.BlockOptinMax, "shared_memory.block_optin_max"))
    return E;
  if (auto E = Less(C.BlockOptinMax, "shared_memory.block_optin_max",
                    C.SharedPerSm, "shared_memory.per_sm"))
    return E;
  if (auto E = Less(C.ThreadsPerBlock, "threads.per_block", C.ThreadsPerSm,
                    "threads.per_sm"))
    return E;
  if (auto E = Less(C.TensorMemoryMinAllocColumns,
                    "tensor_memory.min_allocation_columns",
                    C.TensorMemoryColumns, "tensor_memory.columns"))
    return E;
  if (C.AllocGranularity && *C.AllocGranularity == 0)
    return fieldError(Origin,
                      "architectures." + C.Name +
                          ".shared_memory.allocation_granularity",
                      "must be at least 1");
  if (C.WarpSize && *C.WarpSize == 0)
    return fieldError(Origin, "architectures." + C.Name + ".threads.warp_size",
                      "must be at least 1");
  return std::nullopt;
}

} // namespace

/// The raw entries of every file merged so far, kept so that inheritance and
/// overrides can be resolved again after each merge.
struct RawEntries {
  std::map<std::string, Entry> Entries;
};

namespace {

/// Resolves "inherits" chains into complete entries.
Result<std::map<std::string, ArchCapacity>>
resolve(const std::map<std::string, Entry> &Entries,
        const std::string &Origin) {
  std::map<std::string, ArchCapacity> Out;
  for (const auto &[Name, E] : Entries) {
    std::vector<const Entry *> Chain;
    std::set<std::string> Seen;
    const Entry *Cur = &E;
    std::string CurName = Name;
    while (Cur) {
      if (!Seen.insert(CurName).second)
        return fieldError(Origin, "architectures." + Name + ".inherits",
                          "inheritance cycle through " + CurName);
      Chain.push_back(Cur);
      if (Cur->Inherits.empty())
        break;
      auto It = Entries.find(Cur->Inherits);
      if (It == Entries.end())
        return fieldError(Origin, "architectures." + CurName + ".inherits",
                          "no architecture named '" + Cur->Inherits +
                              "' in the database");
      CurName = Cur->Inherits;
      Cur = &It->second;
    }
    ArchCapacity C;
    for (auto It = Chain.rbegin(); It != Chain.rend(); ++It)
      overlay(**It, C);
    C.Name = Name;
    if (C.ComputeCapability.empty())
      if (auto A = parseArch(Name))
        C.ComputeCapability = A->computeCapability();
    if (auto Err = checkConsistency(C, Origin))
      return *Err;
    Out.emplace(Name, std::move(C));
  }
  return Out;
}

} // namespace

Result<CapacityDatabase> CapacityDatabase::parse(std::string_view Text,
                                                 const std::string &Origin) {
  json J;
  try {
    J = json::parse(Text.begin(), Text.end());
  } catch (const json::parse_error &E) {
    // Turn nlohmann's byte offset into line:column.
    size_t Offset = std::min<size_t>(E.byte ? E.byte - 1 : 0, Text.size());
    unsigned Line = 1, Col = 1;
    for (size_t I = 0; I < Offset; ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
    std::string What = E.what();
    if (auto P = What.find("parse error"); P != std::string::npos)
      What = What.substr(P);
    return ErrorMessage{Origin + ":" + std::to_string(Line) + ":" +
                        std::to_string(Col) + ": not valid JSON: " + What};
  } catch (const json::exception &E) {
    // A number too large for a double (out_of_range.406) is not a parse_error.
    return ErrorMessage{Origin + ": not valid JSON: " + E.what()};
  }
  if (!J.is_object())
    return fieldError(Origin, "(top level)",
                      "expected an object, got " + describe(J));

  CapacityDatabase DB;
  DB.Origin = Origin;
  auto Raw = std::make_shared<RawEntries>();
  bool HaveArchs = false;
  for (auto It = J.begin(); It != J.end(); ++It) {
    const std::string &Key = It.key();
    if (Key == "schema") {
      if (!It->is_string() || It->get<std::string>() != "tilefit-capacity/1")
        return fieldError(Origin, "schema", "expected \"tilefit-capacity/1\"");
    } else if (Key == "description" || Key == "sources" || Key == "units") {
      if (!It->is_string() && !It->is_object())
        return fieldError(Origin, Key,
                          "expected a string or an object, got " +
                              describe(*It));
    } else if (Key == "replace") {
      if (!It->is_boolean())
        return fieldError(Origin, Key,
                          "expected true or false, got " + describe(*It));
      DB.Replace = It->get<bool>();
    } else if (Key == "architectures") {
      if (!It->is_object())
        return fieldError(Origin, Key,
                          "expected an object keyed by architecture, got " +
                              describe(*It));
      HaveArchs = true;
      for (auto A = It->begin(); A != It->end(); ++A) {
        auto Parsed = parseArch(A.key());
        if (!Parsed || Parsed->name() != A.key())
          return fieldError(
              Origin, "architectures." + A.key(),
              "not an architecture name (expected sm_NN, sm_NNa or sm_NNf)");
        Entry E;
        if (auto Err = parseEntry(*A, Origin, A.key(), E))
          return *Err;
        Raw->Entries.emplace(A.key(), std::move(E));
      }
    } else {
      return fieldError(Origin, Key, "unknown key");
    }
  }
  if (!HaveArchs)
    return fieldError(Origin, "architectures", "missing");
  auto Resolved = resolve(Raw->Entries, Origin);
  if (!Resolved)
    return ErrorMessage{Resolved.error()};
  DB.Raw = std::move(Raw);
  DB.Archs = std::move(*Resolved);
  return DB;
}

Result<CapacityDatabase> CapacityDatabase::load(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return ErrorMessage{Path + ": cannot read the capacity database"};
  std::stringstream SS;
  SS << In.rdbuf();
  if (In.bad())
    return ErrorMessage{Path + ": cannot read the capacity database"};
  return parse(SS.str(), Path);
}

std::optional<std::string>
CapacityDatabase::merge(const CapacityDatabase &Other) {
  if (Other.Replace || !Raw) {
    *this = Other;
    return std::nullopt;
  }
  auto Merged = std::make_shared<RawEntries>(*Raw);
  for (const auto &[Name, E] : Other.Raw->Entries) {
    auto [It, Inserted] = Merged->Entries.emplace(Name, E);
    if (Inserted)
      continue;
    Entry &Mine = It->second;
    overlay(E, Mine.Values);
    Mine.Set.insert(E.Set.begin(), E.Set.end());
    if (!E.Inherits.empty())
      Mine.Inherits = E.Inherits;
  }
  auto Resolved = resolve(Merged->Entries, Other.Origin);
  if (!Resolved)
    return Resolved.error();
  Raw = std::move(Merged);
  Archs = std::move(*Resolved);
  Origin += ", " + Other.Origin;
  return std::nullopt;
}

const ArchCapacity *CapacityDatabase::lookup(std::string_view Name) const {
  if (auto It = Archs.find(std::string(Name)); It != Archs.end())
    return &It->second;
  if (auto A = parseArch(Name); A && A->Suffix)
    if (auto It = Archs.find(A->baseName()); It != Archs.end())
      return &It->second;
  return nullptr;
}

std::vector<std::string> CapacityDatabase::names() const {
  std::vector<std::string> Out;
  for (const auto &KV : Archs)
    Out.push_back(KV.first);
  return Out;
}

} // namespace tilefit
