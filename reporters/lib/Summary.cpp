//===- Summary.cpp --------------------------------------------------------===//
#include "tilefit/reporters/Summary.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/Units.h"

#include <algorithm>
#include <map>
#include <set>

namespace tilefit {

bool archBefore(const std::string &A, const std::string &B) {
  auto PA = parseArch(A), PB = parseArch(B);
  if (PA && PB && PA->Number != PB->Number)
    return PA->Number < PB->Number;
  return A < B;
}

std::string summaryCell(const KernelReport &K) {
  std::string Cell = K.StaticBytes ? humanBytes(*K.StaticBytes) : "unknown";
  if (K.WorstLaunch) {
    uint64_t Dyn = *K.Launches[*K.WorstLaunch].DynamicBytes;
    if (Dyn > 0)
      Cell += " + " + humanBytes(Dyn);
  }
  if (std::any_of(K.Launches.begin(), K.Launches.end(),
                  [](const LaunchReport &L) { return !L.DynamicBytes; }))
    Cell += " + ?";
  if (K.Occupancy.BlocksPerSm)
    Cell += " (" + std::to_string(*K.Occupancy.BlocksPerSm) + "/SM)";
  if (K.Worst == Severity::Error)
    Cell += " !";
  else if (K.Worst == Severity::Warning)
    Cell += " ~";
  return Cell;
}

SummaryTable buildSummary(const Report &R) {
  SummaryTable T;
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

  T.Header.push_back("kernel");
  for (const std::string &A : Archs) {
    const KernelReport &Any = *AnyOfArch[A];
    T.Header.push_back(A + (Any.ParsedAs != A ? "*" : "") + (Any.Jit ? " (JIT)" : ""));
  }
  for (const std::string &Row : RowNames) {
    std::vector<std::string> Line = {Row};
    for (const std::string &A : Archs) {
      auto It = Cells[Row].find(A);
      Line.push_back(It == Cells[Row].end() ? "-" : It->second);
    }
    T.Rows.push_back(std::move(Line));
  }
  T.Footer.push_back("block max (opt-in)");
  for (const std::string &A : Archs) {
    const auto &Max = AnyOfArch[A]->Limit.BlockOptinMax;
    T.Footer.push_back(Max ? humanBytes(*Max) : "-");
  }

  T.Legend.push_back("static shared memory per kernel (+ dynamic at its largest launch), (N/SM) "
                     "resident blocks per SM at that launch; ! error, ~ warning");
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(),
                  [](const KernelReport &K) { return K.ParsedAs != K.Arch; }))
    T.Legend.push_back("* parsed as the newest architecture Clang 19 knows, with the target's "
                       "__CUDA_ARCH__; checked against the target's own limits");
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(), [](const KernelReport &K) { return K.Jit; }))
    T.Legend.push_back("(JIT) a PTX-only target: the driver compiles it at run time");
  return T;
}

} // namespace tilefit
