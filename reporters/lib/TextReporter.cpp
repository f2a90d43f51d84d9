//===- TextReporter.cpp ---------------------------------------------------===//
#include "tilefit/reporters/TextReporter.h"
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/reporters/Summary.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/ByteUnits.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace tilefit {
namespace {

std::string position(const SourcePos &P) {
  if (P.File.empty())
    return "tilefit";
  if (!P.valid())
    return P.File;
  return P.File + ":" + std::to_string(P.Line) + ":" + std::to_string(P.Column);
}

/// The source line and a caret under \p P's column, as clang prints them (tabs
/// expanded).
void renderSnippet(const SourcePos &P, SourceLines &Lines, std::ostream &OS) {
  if (!P.valid())
    return;
  auto Text = Lines.line(P.File, P.Line);
  if (!Text)
    return;
  std::string Expanded;
  unsigned CaretCol = 0;
  for (size_t I = 0; I < Text->size(); ++I) {
    if (I + 1 == P.Column)
      CaretCol = static_cast<unsigned>(Expanded.size());
    if ((*Text)[I] == '\t')
      Expanded.append(8 - Expanded.size() % 8, ' ');
    else
      Expanded.push_back((*Text)[I]);
  }
  if (P.Column > Text->size())
    CaretCol = static_cast<unsigned>(Expanded.size());
  std::string Num = std::to_string(P.Line);
  std::string Gutter =
      Num.size() < 5 ? std::string(5 - Num.size(), ' ') + Num : Num;
  OS << Gutter << " | " << Expanded << "\n";
  OS << std::string(Gutter.size(), ' ') << " | " << std::string(CaretCol, ' ')
     << "^\n";
}

} // namespace

void renderDiagnostic(const Diagnostic &D, SourceLines &Lines, std::ostream &OS,
                      const KernelNames *Names) {
  auto Said = [&](const auto &M) {
    return Names ? Names->inMessage(M) : M.Message;
  };
  OS << position(D.Loc) << ": " << severityName(D.Level) << ": " << Said(D);
  if (!D.Check.empty())
    OS << " [" << D.Check << (D.PromotedToError ? ",-warnings-as-errors" : "")
       << "]";
  OS << "\n";
  renderSnippet(D.Loc, Lines, OS);
  for (const Note &N : D.Notes) {
    OS << position(N.Loc) << ": note: " << Said(N) << "\n";
    renderSnippet(N.Loc, Lines, OS);
  }
}

void renderSummary(const Report &R, std::ostream &OS, size_t NameWidth,
                   bool OnlyFindings) {
  if (R.Kernels.empty()) {
    std::vector<std::string> Failures = parseFailures(R);
    if (Failures.empty())
      OS << "tilefit: no kernels found\n";
    for (const std::string &L : Failures)
      OS << "tilefit: " << L << "\n";
    return;
  }
  SummaryTable T = buildSummary(R, NameWidth, OnlyFindings);
  std::vector<size_t> Width(T.Header.size(), 0);
  auto Widen = [&](const std::vector<std::string> &Line) {
    for (size_t I = 0; I < Line.size(); ++I)
      Width[I] = std::max(Width[I], Line[I].size());
  };
  Widen(T.Header);
  for (const auto &Row : T.Rows)
    Widen(Row);
  Widen(T.Footer);
  auto Print = [&](const std::vector<std::string> &Line) {
    std::string Out;
    for (size_t I = 0; I < Line.size(); ++I) {
      std::string Pad(Width[I] - Line[I].size(), ' ');
      Out += I == 0 ? Line[I] + Pad : "  " + Pad + Line[I];
    }
    while (!Out.empty() && Out.back() == ' ')
      Out.pop_back();
    OS << Out << "\n";
  };
  OS << "\n";
  Print(T.Header);
  for (const auto &Row : T.Rows)
    Print(Row);
  size_t Total = 0;
  for (size_t W : Width)
    Total += W + 2;
  OS << std::string(Total - 2, '-') << "\n";
  Print(T.Footer);
  for (const std::string &L : T.ConstantMemory)
    OS << L << "\n";
  OS << "\n";
  for (const std::string &L : T.Legend)
    OS << L << "\n";
  if (!T.Failures.empty())
    OS << "\n";
  for (const std::string &L : T.Failures)
    OS << "tilefit: " << L << "\n";
}

void renderText(const Report &R, SourceLines &Lines, std::ostream &OS,
                size_t NameWidth, bool OnlyFindings) {
  const KernelNames Names(R, NameWidth);
  for (const Diagnostic &D : R.ToolMessages)
    renderDiagnostic(D, Lines, OS, &Names);
  // A unit that fails fails the same way for every architecture: say it once. A
  // unit with many errors shows its first ones (the JSON report has them all).
  constexpr size_t ShownPerUnit = 10;
  std::set<std::string> Said;
  std::map<std::string, size_t> Shown, Hidden;
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages) {
      if (!Said.insert(position(D.Loc) + D.Message).second)
        continue;
      if (D.Level == Severity::Error && Shown[U.File]++ >= ShownPerUnit) {
        ++Hidden[U.File];
        continue;
      }
      renderDiagnostic(D, Lines, OS, &Names);
    }
  for (const auto &[File, Count] : Hidden)
    OS << File << ": note: " << Count << " more error"
       << (Count == 1 ? "" : "s")
       << " not shown (--format=json lists them all)\n";
  for (const Diagnostic &D : R.Diagnostics)
    renderDiagnostic(D, Lines, OS, &Names);
  renderSummary(R, OS, NameWidth, OnlyFindings);
}

} // namespace tilefit
