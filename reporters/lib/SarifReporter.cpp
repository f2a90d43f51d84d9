//===- SarifReporter.cpp --------------------------------------------------===//
#include "tilefit/reporters/SarifReporter.h"
#include "tilefit/reporters/Summary.h"

#include "tilefit/model/Checks.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

namespace tilefit {
namespace {

using json = nlohmann::ordered_json;

std::string sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  default:
    return "note";
  }
}

/// RFC 3986 percent-encoding of a path for a URI (unreserved characters and '/'
/// kept).
std::string encodePath(const std::string &Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (isalnum(C) || C == '/' || C == '-' || C == '_' || C == '.' || C == '~')
      Out.push_back(static_cast<char>(C));
    else {
      char Buf[4];
      std::snprintf(Buf, sizeof(Buf), "%%%02X", C);
      Out += Buf;
    }
  }
  return Out;
}

/// 64-bit FNV-1a, as 16 hex digits: stable across platforms and runs.
std::string fingerprint(const std::string &Text) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  char Buf[20];
  std::snprintf(Buf, sizeof(Buf), "%016llx",
                static_cast<unsigned long long>(H));
  return Buf;
}

class Writer {
public:
  Writer(const SarifOptions &Opts, SourceLines &Lines)
      : Opts(Opts), Lines(Lines) {
    Root = Opts.SourceRoot;
    if (!Root.empty() && Root.back() != '/')
      Root += '/';
  }

  json artifact(const std::string &File) const {
    if (!Root.empty() && File.compare(0, Root.size(), Root) == 0)
      return {{"uri", encodePath(File.substr(Root.size()))},
              {"uriBaseId", "SRCROOT"}};
    if (!File.empty() && File.front() == '/')
      return {{"uri", "file://" + encodePath(File)}};
    return {{"uri", encodePath(File)}};
  }

  json physical(const SourcePos &P) const {
    json Loc = {{"artifactLocation", artifact(P.File)}};
    if (P.valid())
      Loc["region"] = {{"startLine", P.Line},
                       {"startColumn", std::max(1u, P.Column)}};
    return Loc;
  }

  json result(const Diagnostic &D,
              const std::map<std::string, size_t> &RuleIndex,
              std::map<std::string, unsigned> &Seen) {
    json R;
    R["ruleId"] = D.Check;
    if (auto It = RuleIndex.find(D.Check); It != RuleIndex.end())
      R["ruleIndex"] = It->second;
    R["level"] = sarifLevel(D.Level);
    R["message"] = {{"text", D.Message}};
    R["locations"] = json::array({{{"physicalLocation", physical(D.Loc)}}});
    json Related = json::array();
    for (size_t I = 0; I < D.Notes.size(); ++I)
      Related.push_back({{"id", I + 1},
                         {"physicalLocation", physical(D.Notes[I].Loc)},
                         {"message", {{"text", D.Notes[I].Message}}}});
    if (!Related.empty())
      R["relatedLocations"] = std::move(Related);
    // The fingerprint: the check, the file (relative to the root), the text of
    // the flagged line (not its number, which moves when lines are added
    // above), the architecture and the kernel, plus an ordinal for repeats of
    // all of those.
    std::string Line = Lines.line(D.Loc.File, D.Loc.Line).value_or("");
    size_t B = Line.find_first_not_of(" \t"), E = Line.find_last_not_of(" \t");
    Line = B == std::string::npos ? "" : Line.substr(B, E - B + 1);
    std::string Key = D.Check + "|" +
                      artifact(D.Loc.File)["uri"].get<std::string>() + "|" +
                      Line + "|" + D.Arch + "|" + D.Kernel;
    unsigned Ordinal = Seen[Key]++;
    R["partialFingerprints"] = {
        {"tilefitFinding/v1",
         fingerprint(Key + "|" + std::to_string(Ordinal))}};
    json Props = json::object();
    if (!D.Arch.empty())
      Props["arch"] = D.Arch;
    if (!D.Kernel.empty())
      Props["kernel"] = D.Kernel;
    for (const auto &[Name, Value] : D.Figures)
      Props[Name] = Value;
    if (!Props.empty())
      R["properties"] = std::move(Props);
    return R;
  }

private:
  const SarifOptions &Opts;
  SourceLines &Lines;
  std::string Root;
};

} // namespace

void renderSarif(const Report &R, const ToolInfo &Tool,
                 const SarifOptions &Opts, SourceLines &Lines,
                 std::ostream &OS) {
  Writer W(Opts, Lines);
  json Rules = json::array();
  std::map<std::string, size_t> RuleIndex;
  for (const CheckInfo &C : allChecks()) {
    RuleIndex[std::string(C.Name)] = Rules.size();
    json Rule = {
        {"id", std::string(C.Name)},
        {"name", std::string(C.DisplayName)},
        {"shortDescription", {{"text", std::string(C.Summary)}}},
        {"fullDescription", {{"text", std::string(C.Help)}}},
        {"defaultConfiguration", {{"level", sarifLevel(C.DefaultSeverity)}}},
        {"help", {{"text", std::string(C.Help)}}}};
    if (!Opts.InformationUri.empty())
      Rule["helpUri"] = Opts.InformationUri + "/blob/main/docs/checks.md#" +
                        std::string(C.Name);
    Rules.push_back(std::move(Rule));
  }
  json Driver = {{"name", Tool.Name},
                 {"version", Tool.Version},
                 {"semanticVersion", Tool.Version}};
  if (!Opts.InformationUri.empty())
    Driver["informationUri"] = Opts.InformationUri;
  Driver["rules"] = std::move(Rules);

  json Results = json::array();
  std::map<std::string, unsigned> Seen;
  for (const Diagnostic &D : R.ToolMessages)
    Results.push_back(W.result(D, RuleIndex, Seen));
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages)
      Results.push_back(W.result(D, RuleIndex, Seen));
  for (const Diagnostic &D : R.Diagnostics)
    Results.push_back(W.result(D, RuleIndex, Seen));

  json Run = {{"tool", {{"driver", std::move(Driver)}}}};
  if (!Opts.SourceRoot.empty()) {
    std::string Root = Opts.SourceRoot;
    if (Root.back() != '/')
      Root += '/';
    Run["originalUriBaseIds"] = {
        {"SRCROOT", {{"uri", "file://" + encodePath(Root)}}}};
  }
  bool Failed = false;
  for (const UnitReport &U : R.Units)
    Failed |= !U.Ok;
  json Invocation = {{"executionSuccessful", !Failed}};
  // The units that failed to parse, each with its first error, as the text
  // report ends.
  std::vector<std::string> Failures = parseFailures(R);
  if (!Failures.empty()) {
    json Notes = json::array();
    for (const std::string &Line : Failures) {
      std::string Text = Line;
      Text.erase(0, Text.find_first_not_of(' '));
      Notes.push_back({{"level", "error"}, {"message", {{"text", Text}}}});
    }
    Invocation["toolExecutionNotifications"] = std::move(Notes);
  }
  Run["invocations"] = json::array({std::move(Invocation)});
  Run["results"] = std::move(Results);
  json Log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({std::move(Run)})}};
  OS << Log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
     << "\n";
}

} // namespace tilefit
