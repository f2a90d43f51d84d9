//===- MarkdownReporter.cpp -----------------------------------------------===//
#include "tilefit/reporters/MarkdownReporter.h"
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/reporters/Summary.h"

#include "tilefit/model/Checks.h"

namespace tilefit {
namespace {

/// Table cells: pipes escaped, kernel names as code.
std::string cell(const std::string &S) {
  std::string Out;
  for (char C : S) {
    if (C == '|')
      Out += "\\|";
    else
      Out.push_back(C);
  }
  return Out;
}

} // namespace

std::string relativeTo(const std::string &File, const std::string &Root) {
  if (Root.empty())
    return File;
  std::string R = Root.back() == '/' ? Root : Root + "/";
  return File.compare(0, R.size(), R) == 0 ? File.substr(R.size()) : File;
}

void renderMarkdown(const Report &R, const std::string &SourceRoot,
                    std::ostream &OS, size_t NameWidth, bool OnlyFindings) {
  const KernelNames Names(R, NameWidth);
  OS << "### tilefit: shared memory per kernel\n\n";
  if (R.Kernels.empty()) {
    if (parseFailures(R).empty())
      OS << "No kernels found.\n";
  } else {
    SummaryTable T = buildSummary(R, NameWidth, OnlyFindings);
    OS << "|";
    for (const std::string &H : T.Header)
      OS << " " << cell(H) << " |";
    OS << "\n|---|";
    for (size_t I = 1; I < T.Header.size(); ++I)
      OS << "---:|";
    OS << "\n";
    for (const auto &Row : T.Rows) {
      if (Row[0].rfind("  ", 0) == 0) // a scope's sub-row
        OS << "| &nbsp;&nbsp;*" << cell(Row[0].substr(2)) << "* |";
      else
        OS << "| `" << cell(Row[0]) << "` |";
      for (size_t I = 1; I < Row.size(); ++I)
        OS << " " << cell(Row[I]) << " |";
      OS << "\n";
    }
    OS << "| *" << cell(T.Footer[0]) << "* |";
    for (size_t I = 1; I < T.Footer.size(); ++I)
      OS << " *" << cell(T.Footer[I]) << "* |";
    OS << "\n\n";
    for (const std::string &L : T.ConstantMemory)
      OS << "- " << cell(L) << "\n";
    if (!T.ConstantMemory.empty())
      OS << "\n";
    for (const std::string &L : T.Legend)
      OS << "<sub>" << cell(L) << "</sub><br>\n";
  }
  // Which units failed to parse, each with its first error.
  std::vector<std::string> Failures = parseFailures(R);
  for (size_t I = 0; I < Failures.size(); ++I) {
    std::string Line = Failures[I];
    Line.erase(0, Line.find_first_not_of(' '));
    OS << (I == 0 ? "\n**" + cell(Line) + "**\n\n" : "- " + cell(Line) + "\n");
  }

  std::vector<const Diagnostic *> All;
  for (const Diagnostic &D : R.ToolMessages)
    All.push_back(&D);
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages)
      All.push_back(&D);
  for (const Diagnostic &D : R.Diagnostics)
    if (D.Level == Severity::Error || D.Level == Severity::Warning)
      All.push_back(&D);
  if (All.empty())
    return;
  OS << "\n#### Findings\n\n| | check | where | arch | message "
        "|\n|---|---|---|---|---|\n";
  for (const Diagnostic *D : All) {
    std::string Where = relativeTo(D->Loc.File, SourceRoot);
    if (D->Loc.valid())
      Where += ":" + std::to_string(D->Loc.Line);
    OS << "| "
       << (D->Level == Severity::Error ? "error"
                                       : std::string(severityName(D->Level)))
       << " | `" << D->Check << "` | " << cell(Where) << " | " << D->Arch
       << " | " << cell(Names.inMessage(*D)) << " |\n";
  }
}

} // namespace tilefit
