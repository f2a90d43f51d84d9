//===- TextReporter.cpp ---------------------------------------------------===//
#include "tilefit/reporters/TextReporter.h"

#include "tilefit/model/Checks.h"
#include "tilefit/model/Units.h"

#include <algorithm>
#include <cstdio>
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

void renderSummary(const Report &R, std::ostream &OS) {
  if (R.Kernels.empty()) {
    OS << "tilefit: no kernels found\n";
    return;
  }
  struct Row {
    std::string Kernel, Arch, Static, Dynamic, Limit, Use;
  };
  std::vector<Row> Rows;
  Rows.push_back({"kernel", "arch", "static smem", "dynamic", "block max", "use"});
  std::set<std::string> Archs;
  for (const KernelReport &K : R.Kernels) {
    Row Rw;
    Rw.Kernel = K.Name;
    Rw.Arch = K.Arch + (K.ParsedAs != K.Arch ? "*" : "");
    Archs.insert(K.Arch);
    Rw.Static = K.StaticBytes ? humanBytes(*K.StaticBytes) : "unknown";
    Rw.Dynamic = K.DynamicDeclared ? "declared" : "-";
    Rw.Limit = orDash(K.Limit.BlockOptinMax);
    if (K.StaticBytes && K.Limit.BlockOptinMax && *K.Limit.BlockOptinMax) {
      char Buf[32];
      std::snprintf(Buf, sizeof(Buf), "%.1f%%",
                    100.0 * static_cast<double>(*K.StaticBytes) /
                        static_cast<double>(*K.Limit.BlockOptinMax));
      Rw.Use = Buf;
    } else {
      Rw.Use = "-";
    }
    Rows.push_back(std::move(Rw));
  }
  size_t W[6] = {0, 0, 0, 0, 0, 0};
  for (const Row &Rw : Rows) {
    const std::string *Cells[6] = {&Rw.Kernel, &Rw.Arch, &Rw.Static, &Rw.Dynamic, &Rw.Limit, &Rw.Use};
    for (int I = 0; I < 6; ++I)
      W[I] = std::max(W[I], Cells[I]->size());
  }
  OS << "\n";
  for (const Row &Rw : Rows) {
    const std::string *Cells[6] = {&Rw.Kernel, &Rw.Arch, &Rw.Static, &Rw.Dynamic, &Rw.Limit, &Rw.Use};
    std::string Line;
    for (int I = 0; I < 6; ++I) {
      // Text left-aligned, figures right-aligned.
      const std::string &C = *Cells[I];
      std::string Pad(W[I] - C.size(), ' ');
      Line += (I < 2) ? C + Pad : Pad + C;
      if (I < 5)
        Line += "  ";
    }
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    OS << Line << "\n";
  }
  bool Substituted = std::any_of(R.Kernels.begin(), R.Kernels.end(),
                                 [](const KernelReport &K) { return K.ParsedAs != K.Arch; });
  std::string ArchList;
  for (const std::string &A : Archs)
    ArchList += (ArchList.empty() ? "" : ", ") + A;
  OS << "\n" << R.Kernels.size() << (R.Kernels.size() == 1 ? " kernel" : " kernels") << " on "
     << ArchList << "; block max = per-block shared memory with opt-in\n";
  if (Substituted)
    OS << "* parsed as the newest architecture Clang 19 knows, with the target's __CUDA_ARCH__; "
          "checked against the target's own limits\n";
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
