//===- ReportFields.h - Reading and writing a report's fields -*- C++ -*-===//
//
// The helpers the report's JSON codec (ReportJson.cpp, DiagnosticJson.cpp)
// reads and writes its fields with: a field that is missing or of the wrong
// type throws BadField with its JSON path; optional keys may be absent. Also
// the codec of findings (Diagnostic, Note), which the report holds in two
// lists. Model-private.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_LIB_REPORTFIELDS_H
#define TILEFIT_MODEL_LIB_REPORTFIELDS_H

#include "ReasonJson.h"

#include "tilefit/model/Facts.h"
#include "tilefit/model/Reason.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <optional>
#include <string>

namespace tilefit {
namespace reportfields {

using json = nlohmann::ordered_json;

/// A field that is missing or of the wrong type, at its JSON path.
struct BadField {
  std::string Path, Problem;
};

//===--- Scalars ----------------------------------------------------------===//

inline json optional(const std::optional<uint64_t> &V) {
  return V ? json(*V) : json(nullptr);
}
/// The reason beside a figure: null when the figure is known.
template <typename T>
inline json reasonFor(const std::optional<T> &Figure, const std::string &Why) {
  return Figure ? json(nullptr) : json(Why);
}

/// A fact's reason beside its figure, both null when the figure is known: its
/// words (`unknown_reason`) and its kind with arguments (`unknown_reason_kind`,
/// ReasonJson.h), which is what reading the report back takes.
template <typename T>
inline void putReason(json &J, const std::optional<T> &Figure,
                      const Reason &Why) {
  J["unknown_reason"] = Figure ? json(nullptr) : json(describe(Why));
  J["unknown_reason_kind"] = Figure ? json(nullptr) : json(Why);
}

inline std::string item(const std::string &Path, const char *Key, size_t I) {
  return Path + "." + Key + "[" + std::to_string(I) + "]";
}

inline const json &at(const json &J, const char *Key, const std::string &Path) {
  if (!J.is_object() || !J.contains(Key))
    throw BadField{Path + "." + Key, "missing"};
  return J.at(Key);
}
inline bool present(const json &J, const char *Key) {
  return J.is_object() && J.contains(Key) && !J.at(Key).is_null();
}
inline std::string str(const json &J, const char *Key,
                       const std::string &Path) {
  const json &V = at(J, Key, Path);
  if (!V.is_string())
    throw BadField{Path + "." + Key, "expected a string"};
  return V.get<std::string>();
}
inline std::string strOr(const json &J, const char *Key,
                         const std::string &Path) {
  return present(J, Key) ? str(J, Key, Path) : "";
}
/// The kind putReason wrote; none where the report has none.
inline Reason reasonFrom(const json &J, const std::string &Path) {
  if (!present(J, "unknown_reason_kind"))
    return {};
  try {
    return J.at("unknown_reason_kind").get<Reason>();
  } catch (const json::exception &E) {
    throw BadField{Path + ".unknown_reason_kind", E.what()};
  }
}
/// An integer that fits in 64 bits without sign. A number with a fraction or an
/// exponent is refused: converting one out of range would be undefined (found
/// by fuzz_json_report).
inline uint64_t unsignedValue(const json &V, const std::string &Where) {
  if (!V.is_number_unsigned() &&
      !(V.is_number_integer() && V.get<int64_t>() >= 0))
    throw BadField{Where, "expected a non-negative integer"};
  return V.get<uint64_t>();
}
/// An integer that fits in 64 bits with a sign.
inline int64_t signedValue(const json &V, const std::string &Where) {
  if (!V.is_number_integer() ||
      (V.is_number_unsigned() &&
       V.get<uint64_t>() >
           static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
    throw BadField{Where, "expected an integer"};
  return V.get<int64_t>();
}
inline uint64_t num(const json &J, const char *Key, const std::string &Path) {
  return unsignedValue(at(J, Key, Path), Path + "." + Key);
}
inline std::optional<uint64_t> opt(const json &J, const char *Key,
                                   const std::string &Path) {
  if (!present(J, Key))
    return std::nullopt;
  return num(J, Key, Path);
}
inline bool flag(const json &J, const char *Key, const std::string &Path) {
  if (!J.is_object() || !J.contains(Key))
    return false;
  if (!J.at(Key).is_boolean())
    throw BadField{Path + "." + Key, "expected true or false"};
  return J.at(Key).get<bool>();
}
inline const json &arr(const json &J, const char *Key,
                       const std::string &Path) {
  const json &V = at(J, Key, Path);
  if (!V.is_array())
    throw BadField{Path + "." + Key, "expected an array"};
  return V;
}
/// Each element of the array at \p Key (absent: none) read by \p Read with its
/// path.
template <typename Fn>
inline void each(const json &J, const char *Key, const std::string &Path,
                 Fn Read) {
  if (!J.is_object() || !J.contains(Key))
    return;
  const json &A = arr(J, Key, Path);
  for (size_t I = 0; I < A.size(); ++I)
    Read(A[I], item(Path, Key, I));
}

//===--- SourcePos: file, line, column inside its owner's object ----------===//

inline void putPos(json &J, const SourcePos &P) {
  J["file"] = P.File;
  J["line"] = P.Line;
  J["column"] = P.Column;
}
inline json posJson(const SourcePos &P) {
  json J = json::object();
  putPos(J, P);
  return J;
}
inline SourcePos posFrom(const json &J, const std::string &Path) {
  SourcePos P;
  P.File = strOr(J, "file", Path);
  P.Line = static_cast<unsigned>(opt(J, "line", Path).value_or(0));
  P.Column = static_cast<unsigned>(opt(J, "column", Path).value_or(0));
  return P;
}

//===--- Diagnostic and Note (DiagnosticJson.cpp) -------------------------===//

json diagnosticJson(const Diagnostic &D);
Diagnostic diagnosticFrom(const json &J, const std::string &Path);

} // namespace reportfields
} // namespace tilefit

#endif
