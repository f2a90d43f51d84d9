//===- DiagnosticJson.cpp - A finding in the report's JSON, both ways -----===//
//
// A finding (Diagnostic) and its notes as the report's `diagnostics` and
// `tool_messages` hold them, written and read side by side (ReportJson.cpp).
//
//===----------------------------------------------------------------------===//
#include "ReportFields.h"

#include "tilefit/model/Checks.h"
#include "tilefit/model/Messages.h"

namespace tilefit {
namespace reportfields {
namespace {

//===--- Severity ---------------------------------------------------------===//

json severityJson(Severity S) { return std::string(severityName(S)); }
Severity severityFrom(const std::string &S, const std::string &Path) {
  for (Severity L :
       {Severity::Error, Severity::Warning, Severity::Remark, Severity::Note})
    if (S == severityName(L))
      return L;
  throw BadField{Path, "unknown severity '" + S + "'"};
}

//===--- Note and Diagnostic ----------------------------------------------===//

/// Where a message names a kernel or the finding's architecture (Messages.h),
/// in bytes: `"slots": [{"kind": "kernel", "offset": 8, "length": 12}]`; no
/// key when it names neither.
void putSlots(json &J, const std::vector<MessageSlot> &Slots) {
  if (Slots.empty())
    return;
  json A = json::array();
  for (const MessageSlot &S : Slots)
    A.push_back({{"kind", S.K == MessageSlot::Kind::Kernel ? "kernel" : "arch"},
                 {"offset", S.Offset},
                 {"length", S.Length}});
  J["slots"] = std::move(A);
}
std::vector<MessageSlot> slotsFrom(const json &J, const std::string &Path) {
  std::vector<MessageSlot> Slots;
  each(J, "slots", Path, [&](const json &S, const std::string &P) {
    const std::string Kind = str(S, "kind", P);
    if (Kind != "kernel" && Kind != "arch")
      throw BadField{P + ".kind", "expected \"kernel\" or \"arch\""};
    Slots.push_back(
        {Kind == "kernel" ? MessageSlot::Kind::Kernel : MessageSlot::Kind::Arch,
         static_cast<size_t>(num(S, "offset", P)),
         static_cast<size_t>(num(S, "length", P))});
  });
  return Slots;
}

/// The edits a note suggests: `"fix": {"title": "set STAGES to 3", "edits":
/// [{"file": ..., "line": 7, "column": 30, "length": 1, "text": "3"}]}`; no
/// key when none.
void putFix(json &J, const std::optional<FixIt> &F) {
  if (!F)
    return;
  json Edits = json::array();
  for (const TextEdit &E : F->Edits) {
    json Edit;
    putPos(Edit, E.At);
    Edit["length"] = E.Length;
    Edit["text"] = E.Text;
    Edits.push_back(std::move(Edit));
  }
  J["fix"] = {{"title", F->Title}, {"edits", std::move(Edits)}};
}
std::optional<FixIt> fixFrom(const json &J, const std::string &Path) {
  if (!present(J, "fix"))
    return std::nullopt;
  const json &F = J.at("fix");
  const std::string P = Path + ".fix";
  FixIt Fix{str(F, "title", P), {}};
  const json &Edits = F.contains("edits") ? F.at("edits") : json();
  if (!Edits.is_array())
    throw BadField{P + ".edits", "expected an array"};
  for (size_t I = 0; I < Edits.size(); ++I) {
    const std::string EP = P + ".edits[" + std::to_string(I) + "]";
    Fix.Edits.push_back({posFrom(Edits[I], EP),
                         static_cast<unsigned>(num(Edits[I], "length", EP)),
                         str(Edits[I], "text", EP)});
  }
  return Fix;
}

json noteJson(const Note &N) {
  json J = {{"message", N.Message}};
  putPos(J, N.Loc);
  putSlots(J, N.Slots);
  putFix(J, N.Fix);
  return J;
}
Note noteFrom(const json &J, const std::string &Path) {
  Note N{str(J, "message", Path), posFrom(J, Path), slotsFrom(J, Path)};
  N.Fix = fixFrom(J, Path);
  return N;
}

} // namespace

json diagnosticJson(const Diagnostic &D) {
  json Notes = json::array();
  for (const Note &N : D.Notes)
    Notes.push_back(noteJson(N));
  json Figures = json::object();
  for (const auto &[Name, Value] : D.Figures)
    Figures[Name] = Value;
  json J = {{"severity", severityJson(D.Level)},
            {"check", D.Check},
            {"message", D.Message}};
  putPos(J, D.Loc);
  J["arch"] = D.Arch;
  J["kernel"] = D.Kernel;
  J["translation_unit"] = D.TranslationUnit;
  J["figures"] = std::move(Figures);
  J["notes"] = std::move(Notes);
  putSlots(J, D.Slots);
  if (D.PromotedToError)
    J["warning_as_error"] = true;
  return J;
}
Diagnostic diagnosticFrom(const json &J, const std::string &Path) {
  Diagnostic D;
  D.Level = severityFrom(str(J, "severity", Path), Path + ".severity");
  D.Check = str(J, "check", Path);
  D.Message = str(J, "message", Path);
  D.Loc = posFrom(J, Path);
  D.Arch = strOr(J, "arch", Path);
  D.Kernel = strOr(J, "kernel", Path);
  D.TranslationUnit = strOr(J, "translation_unit", Path);
  if (present(J, "figures") && J.at("figures").is_object())
    for (auto It = J.at("figures").begin(); It != J.at("figures").end(); ++It)
      D.Figures.push_back({It.key(), num(J.at("figures"), It.key().c_str(),
                                         Path + ".figures")});
  arr(J, "notes", Path); // required
  each(J, "notes", Path, [&](const json &N, const std::string &P) {
    D.Notes.push_back(noteFrom(N, P));
  });
  D.Slots = slotsFrom(J, Path);
  D.PromotedToError = flag(J, "warning_as_error", Path);
  return D;
}

} // namespace reportfields
} // namespace tilefit
