//===- TextReporter.cpp ---------------------------------------------------===//
#include "tilefit/reporters/TextReporter.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Units.h"

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

/// The source line and a caret under \p P's column, as clang prints them (tabs expanded).
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
  std::string Gutter = Num.size() < 5 ? std::string(5 - Num.size(), ' ') + Num : Num;
  OS << Gutter << " | " << Expanded << "\n";
  OS << std::string(Gutter.size(), ' ') << " | " << std::string(CaretCol, ' ') << "^\n";
}

std::string orDash(const std::optional<uint64_t> &V) {
  return V ? humanBytes(*V) : std::string("-");
}

} // namespace

void renderDiagnostic(const Diagnostic &D, SourceLines &Lines, std::ostream &OS) {
  OS << position(D.Loc) << ": " << severityName(D.Level) << ": " << D.Message;
  if (!D.Check.empty())
    OS << " [" << D.Check << "]";
  OS << "\n";
  renderSnippet(D.Loc, Lines, OS);
  for (const Note &N : D.Notes) {
    OS << position(N.Loc) << ": note: " << N.Message << "\n";
    renderSnippet(N.Loc, Lines, OS);
  }
}

namespace {

/// "4.1 KiB", "1 KiB + 100 KiB" (worst launch's dynamic memory), "2 KiB + ?" (a launch whose
/// size is not a constant), with " !" for an error and " ~" for a warning on that architecture.
std::string summaryCell(const KernelReport &K) {
  std::string Cell = K.StaticBytes ? humanBytes(*K.StaticBytes) : "unknown";
  if (K.WorstLaunch) {
    uint64_t Dyn = *K.Launches[*K.WorstLaunch].DynamicBytes;
    if (Dyn > 0)
      Cell += " + " + humanBytes(Dyn);
  }
  bool UnknownLaunch = std::any_of(K.Launches.begin(), K.Launches.end(),
                                   [](const LaunchReport &L) { return !L.DynamicBytes; });
  if (UnknownLaunch)
    Cell += " + ?";
  if (K.Occupancy.BlocksPerSm)
    Cell += " (" + std::to_string(*K.Occupancy.BlocksPerSm) + "/SM)";
  if (K.Worst == Severity::Error)
    Cell += " !";
  else if (K.Worst == Severity::Warning)
    Cell += " ~";
  return Cell;
}

bool archBefore(const std::string &A, const std::string &B) {
  auto PA = parseArch(A), PB = parseArch(B);
  if (PA && PB && PA->Number != PB->Number)
    return PA->Number < PB->Number;
  return A < B;
}

} // namespace

void renderSummary(const Report &R, std::ostream &OS) {
  if (R.Kernels.empty()) {
    OS << "tilefit: no kernels found\n";
    return;
  }
  // Columns: architectures in order; rows: kernels, in report order.
  std::vector<std::string> Archs;
  std::map<std::string, const KernelReport *> AnyOfArch;
  std::map<std::string, std::set<std::string>> UnitsOfName;
  for (const KernelReport &K : R.Kernels) {
    if (!AnyOfArch.count(K.Arch))
      Archs.push_back(K.Arch);
    AnyOfArch[K.Arch] = &K;
    UnitsOfName[K.Name].insert(K.TranslationUnit);
  }
  std::stable_sort(Archs.begin(), Archs.end(), archBefore);

  std::vector<std::string> RowNames;
  std::map<std::string, std::map<std::string, std::string>> Cells;
  for (const KernelReport &K : R.Kernels) {
    std::string Row = K.Name;
    if (UnitsOfName[K.Name].size() > 1) {
      size_t Slash = K.TranslationUnit.rfind('/');
      Row += " (" + K.TranslationUnit.substr(Slash == std::string::npos ? 0 : Slash + 1) + ")";
    }
    if (!Cells.count(Row))
      RowNames.push_back(Row);
    Cells[Row][K.Arch] = summaryCell(K);
  }

  std::vector<std::vector<std::string>> Table;
  std::vector<std::string> Header = {"kernel"};
  for (const std::string &A : Archs) {
    const KernelReport &Any = *AnyOfArch[A];
    Header.push_back(A + (Any.ParsedAs != A ? "*" : "") + (Any.Jit ? " (JIT)" : ""));
  }
  Table.push_back(Header);
  for (const std::string &Row : RowNames) {
    std::vector<std::string> Line = {Row};
    for (const std::string &A : Archs) {
      auto It = Cells[Row].find(A);
      Line.push_back(It == Cells[Row].end() ? "-" : It->second);
    }
    Table.push_back(Line);
  }
  std::vector<std::string> Footer = {"block max (opt-in)"};
  for (const std::string &A : Archs)
    Footer.push_back(orDash(AnyOfArch[A]->Limit.BlockOptinMax));

  std::vector<size_t> Width(Header.size(), 0);
  for (const auto *Rows : {&Table})
    for (const auto &Line : *Rows)
      for (size_t I = 0; I < Line.size(); ++I)
        Width[I] = std::max(Width[I], Line[I].size());
  for (size_t I = 0; I < Footer.size(); ++I)
    Width[I] = std::max(Width[I], Footer[I].size());
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
  Print(Table[0]);
  for (size_t I = 1; I < Table.size(); ++I)
    Print(Table[I]);
  size_t Total = 0;
  for (size_t W : Width)
    Total += W + 2;
  OS << std::string(Total - 2, '-') << "\n";
  Print(Footer);

  OS << "\nstatic shared memory per kernel (+ dynamic at its largest launch), (N/SM) resident "
        "blocks per SM at that launch; ! error, ~ warning\n";
  bool Substituted = std::any_of(R.Kernels.begin(), R.Kernels.end(),
                                 [](const KernelReport &K) { return K.ParsedAs != K.Arch; });
  if (Substituted)
    OS << "* parsed as the newest architecture Clang 19 knows, with the target's __CUDA_ARCH__; "
          "checked against the target's own limits\n";
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(), [](const KernelReport &K) { return K.Jit; }))
    OS << "(JIT) a PTX-only target: the driver compiles it at run time\n";
}

void renderText(const Report &R, SourceLines &Lines, std::ostream &OS) {
  for (const Diagnostic &D : R.ToolMessages)
    renderDiagnostic(D, Lines, OS);
  // A unit that fails fails the same way for every architecture: say it once.
  std::set<std::string> Said;
  for (const UnitReport &U : R.Units)
    for (const Diagnostic &D : U.Messages)
      if (Said.insert(position(D.Loc) + D.Message).second)
        renderDiagnostic(D, Lines, OS);
  for (const Diagnostic &D : R.Diagnostics)
    renderDiagnostic(D, Lines, OS);
  renderSummary(R, OS);
}

} // namespace tilefit
