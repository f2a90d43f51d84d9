//===- Summary.cpp --------------------------------------------------------===//
#include "tilefit/reporters/Summary.h"
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/ByteUnits.h"

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

namespace {
bool hasUnknownLaunch(const KernelReport &K) {
  return std::any_of(K.Launches.begin(), K.Launches.end(),
                     [](const LaunchReport &L) { return !L.DynamicBytes; });
}
/// A launch of unknown dynamic size of a kernel that declares no extern
/// __shared__ array.
bool unusedUnknownDynamic(const KernelReport &K) {
  return !K.DynamicDeclared && hasUnknownLaunch(K);
}
} // namespace

std::string summaryCell(const KernelReport &K) {
  std::string Cell = K.StaticBytes ? exactBytes(*K.StaticBytes) : "?";
  if (K.WorstLaunch) {
    uint64_t Dyn = *K.Launches[*K.WorstLaunch].DynamicBytes;
    if (Dyn > 0)
      Cell += " + " + exactBytes(Dyn);
  }
  // A kernel without an extern __shared__ array uses none of it: an unknown
  // size only lowers its blocks per SM (said once, in the legend).
  const bool Unused = unusedUnknownDynamic(K);
  if (hasUnknownLaunch(K) && !Unused)
    Cell += " + ?";
  if (K.Occupancy.BlocksPerSm)
    Cell += std::string(occupancyIsUpperBound(K) || Unused ? " (<=" : " (") +
            std::to_string(*K.Occupancy.BlocksPerSm) + "/SM)";
  if (K.Worst == Severity::Error)
    Cell += " !";
  else if (K.Worst == Severity::Warning)
    Cell += " ~";
  return Cell;
}

std::string registersCell(const KernelReport &K) {
  const RegisterTileReport &G = K.Registers;
  if (G.Arrays.empty())
    return "-";
  if (!G.BytesPerThread)
    return "unknown";
  std::string Cell = exactBytes(*G.BytesPerThread) + " = " +
                     std::to_string(G.RegistersPerThread.value_or(0)) + " regs";
  if (G.Limit)
    Cell += " of " + std::to_string(*G.Limit);
  if (G.BytesPerBlock)
    Cell += ", " + exactBytes(*G.BytesPerBlock) + "/block";
  return Cell;
}

std::string tensorMemoryCell(const KernelReport &K) {
  if (!K.TensorMemory || K.TensorMemory->Allocations.empty())
    return "-";
  const TensorMemoryReport &T = *K.TensorMemory;
  std::string Cell = T.Columns ? std::to_string(*T.Columns) : "?";
  if (T.Capacity)
    Cell += "/" + std::to_string(*T.Capacity);
  return Cell + " cols";
}

namespace {

/// "75 B of 64 KiB", "unknown", with the number of variables.
std::string constantText(const ConstantMemoryReport &C) {
  std::string S = C.Bytes ? exactBytes(*C.Bytes) : "unknown";
  if (C.Limit)
    S += " of " + exactBytes(*C.Limit);
  S += " (" + std::to_string(C.Variables.size()) +
       (C.Variables.size() == 1 ? " variable" : " variables") + ")";
  if (C.Bytes && C.Limit && *C.Bytes > *C.Limit)
    S += " !";
  return S;
}

using CellsByArch = std::map<std::string, std::string>;
using CellsByRow = std::map<std::string, CellsByArch>;

/// The table's cells before layout: one row per kernel name (and unit, when a
/// name is in several), one cell per architecture.
struct SummaryCells {
  std::vector<std::string> Archs; ///< In archBefore order.
  std::map<std::string, const KernelReport *> AnyOfArch;
  std::map<std::string, std::set<std::string>> UnitsOfName;
  std::vector<std::string> RowNames; ///< In report order.
  CellsByRow Cells, RegCells, TmemCells;
  std::vector<std::string>
      Reasons; ///< Why a static figure is unknown, in footnote order.
};

/// The row of \p K: its short name, with its unit's file name when the name
/// is in several units.
std::string rowNameOf(const KernelReport &K, const KernelNames &Names,
                      const SummaryCells &S) {
  std::string Row = Names.of(K.Name);
  if (S.UnitsOfName.at(K.Name).size() > 1)
    Row += " (" + fileNameOf(K.TranslationUnit) + ")";
  return Row;
}

/// The architectures of \p R and every kernel's cells, by row.
SummaryCells collectCells(const Report &R, const KernelNames &Names) {
  SummaryCells S;
  for (const KernelReport &K : R.Kernels) {
    if (!S.AnyOfArch.count(K.Arch))
      S.Archs.push_back(K.Arch);
    S.AnyOfArch[K.Arch] = &K;
    S.UnitsOfName[K.Name].insert(K.TranslationUnit);
  }
  std::stable_sort(S.Archs.begin(), S.Archs.end(), archBefore);

  for (const KernelReport &K : R.Kernels) {
    const std::string Row = rowNameOf(K, Names, S);
    if (!S.Cells.count(Row))
      S.RowNames.push_back(Row);
    std::string Cell = summaryCell(K);
    if (!K.StaticBytes) {
      // `? [1]`, with the reason in a footnote (one per distinct reason).
      auto It = std::find(S.Reasons.begin(), S.Reasons.end(), K.UnknownReason);
      if (It == S.Reasons.end())
        It = S.Reasons.insert(S.Reasons.end(), K.UnknownReason);
      Cell.insert(1, " [" + std::to_string(It - S.Reasons.begin() + 1) + "]");
    }
    S.Cells[Row][K.Arch] = std::move(Cell);
    if (!K.Registers.Arrays.empty())
      S.RegCells[Row][K.Arch] = registersCell(K);
    if (K.TensorMemory && !K.TensorMemory->Allocations.empty())
      S.TmemCells[Row][K.Arch] = tensorMemoryCell(K);
  }
  return S;
}

/// A table line: \p Name, then \p Of's cell per architecture ("-" if none).
std::vector<std::string> summaryLine(const std::string &Name,
                                     const CellsByArch &Of,
                                     const std::vector<std::string> &Archs) {
  std::vector<std::string> Line = {Name};
  for (const std::string &A : Archs) {
    auto It = Of.find(A);
    Line.push_back(It == Of.end() ? "-" : It->second);
  }
  return Line;
}

/// Fills \p T's header, rows and footer from \p S; returns the number of
/// kernels left out because they have no finding (\p OnlyFindings).
size_t layOutTable(SummaryTable &T, const Report &R, const KernelNames &Names,
                   const SummaryCells &S, bool OnlyFindings) {
  T.Header.push_back("kernel");
  for (const std::string &A : S.Archs) {
    const KernelReport &Any = *S.AnyOfArch.at(A);
    T.Header.push_back(A + (Any.ParsedAs != A ? "*" : "") +
                       (Any.Jit ? " (JIT)" : ""));
  }
  // --summary=findings: only the kernels something is said about.
  std::set<std::string> WithFindings;
  for (const KernelReport &K : R.Kernels)
    if (K.Worst)
      WithFindings.insert(rowNameOf(K, Names, S));
  size_t Hidden = 0;
  for (const std::string &Row : S.RowNames) {
    if (OnlyFindings && !WithFindings.count(Row)) {
      ++Hidden;
      continue;
    }
    T.Rows.push_back(summaryLine(Row, S.Cells.at(Row), S.Archs));
    if (S.RegCells.count(Row))
      T.Rows.push_back(summaryLine("  registers", S.RegCells.at(Row), S.Archs));
    if (S.TmemCells.count(Row))
      T.Rows.push_back(
          summaryLine("  tensor memory", S.TmemCells.at(Row), S.Archs));
  }
  T.Footer.push_back("block max (opt-in)");
  for (const std::string &A : S.Archs) {
    const auto &Max = S.AnyOfArch.at(A)->Limit.BlockOptinMax;
    T.Footer.push_back(Max ? exactBytes(*Max) : "-");
  }
  return Hidden;
}

/// Neighbouring architectures whose every figure is the same share a column:
/// `sm_86,sm_89`, `sm_100..sm_120` (nine architectures would otherwise make
/// 400-character lines). Returns the merged columns' headers.
std::vector<std::string> mergeSameColumns(SummaryTable &T) {
  std::vector<std::string> Merged;
  for (size_t C = 1; C < T.Header.size();) {
    size_t D = C;
    auto Same = [&](size_t A, size_t B) {
      if (T.Footer[A] != T.Footer[B])
        return false;
      for (const auto &Row : T.Rows)
        if (Row[A] != Row[B])
          return false;
      return true;
    };
    while (D + 1 < T.Header.size() && Same(C, D + 1))
      ++D;
    if (D > C) {
      const std::string Name =
          T.Header[C] + (D == C + 1 ? "," : "..") + T.Header[D];
      Merged.push_back(Name);
      T.Header[C] = Name;
      auto Drop = [&](std::vector<std::string> &Line) {
        Line.erase(Line.begin() + C + 1, Line.begin() + D + 1);
      };
      Drop(T.Header);
      Drop(T.Footer);
      for (auto &Row : T.Rows)
        Drop(Row);
    }
    ++C;
  }
  return Merged;
}

/// The legend line on kernels without an extern __shared__ array launched
/// with an unknown dynamic size; empty when there is none.
std::string unusedDynamicLegend(const Report &R) {
  std::set<std::string> Unused;
  for (const KernelReport &K : R.Kernels)
    if (unusedUnknownDynamic(K))
      Unused.insert(K.Name);
  if (Unused.empty())
    return "";
  return std::to_string(Unused.size()) +
         (Unused.size() == 1 ? " kernel declares" : " kernels declare") +
         " no extern __shared__ array but " +
         (Unused.size() == 1 ? "is" : "are") +
         " launched with a dynamic size that is not a compile-time constant: " +
         (Unused.size() == 1
              ? "it uses none of it, and it only lowers its"
              : "they use none of it, and it only lowers their") +
         " blocks per SM (<=N/SM); a `// tilefit-dynamic-smem: N` comment at "
         "the launch, or DynamicSharedMemory in .tilefit.yaml, states it";
}

/// Fills \p T's legend: the marks its cells use, \p Hidden kernels left out,
/// the \p Merged columns and the footnotes.
void addLegend(SummaryTable &T, const Report &R, const SummaryCells &S,
               size_t Hidden, const std::vector<std::string> &Merged) {
  T.Legend.push_back(
      "static shared memory per kernel (+ dynamic at its largest launch), "
      "(N/SM) "
      "resident blocks per SM at that launch; ! error, ~ warning");
  if (Hidden)
    T.Legend.push_back(
        std::to_string(Hidden) + (Hidden == 1 ? " kernel" : " kernels") +
        " with nothing to report not shown (--summary=all shows them)");
  for (const std::string &M : Merged)
    T.Legend.push_back(M +
                       ": architectures with the same figures, in one column");
  // Without a register count, blocks per SM are counted from shared memory,
  // warps and the block limit alone.
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(), occupancyIsUpperBound))
    T.Legend.push_back(
        "(<=N/SM) the most blocks per SM that shared memory, warps and the "
        "block limit allow, not the kernel's occupancy: nothing says how many "
        "registers a thread uses (no --registers, -maxrregcount or "
        "__launch_bounds__), and ptxas's count may allow fewer");
  if (!S.Reasons.empty() || std::any_of(R.Kernels.begin(), R.Kernels.end(),
                                        [](const KernelReport &K) {
                                          return hasUnknownLaunch(K) &&
                                                 !unusedUnknownDynamic(K);
                                        }))
    T.Legend.push_back("? unknown: a static figure with the footnote that says "
                       "why; + ? a launch "
                       "whose dynamic size is not a compile-time constant");
  std::string Unused = unusedDynamicLegend(R);
  if (!Unused.empty())
    T.Legend.push_back(std::move(Unused));
  for (size_t I = 0; I < S.Reasons.size(); ++I)
    T.Legend.push_back("[" + std::to_string(I + 1) + "] " + S.Reasons[I]);
  if (!S.RegCells.empty())
    T.Legend.push_back(
        "registers: per-thread local arrays, bytes = 32-bit registers of the "
        "per-thread limit, and bytes per block at its block size");
  if (!S.TmemCells.empty())
    T.Legend.push_back("tensor memory: columns allocated / columns per SM (? "
                       "when a count is not "
                       "a compile-time constant)");
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(),
                  [](const KernelReport &K) { return K.ParsedAs != K.Arch; }))
    T.Legend.push_back(
        "* parsed as the newest architecture Clang 19 knows, with the target's "
        "__CUDA_ARCH__; checked against the target's own limits");
  if (std::any_of(R.Kernels.begin(), R.Kernels.end(),
                  [](const KernelReport &K) { return K.Jit; }))
    T.Legend.push_back(
        "(JIT) a PTX-only target: the driver compiles it at run time");
}

/// Constant memory per unit, architectures with the same figure on one line.
std::vector<std::string> constantMemoryLines(const Report &R) {
  std::vector<std::string> Lines;
  std::vector<std::string> Files;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      ByFile;
  for (const UnitReport &U : R.Units) {
    if (!U.ConstantMemory || U.ConstantMemory->Variables.empty())
      continue;
    if (!ByFile.count(U.File))
      Files.push_back(U.File);
    ByFile[U.File].push_back({U.Arch, constantText(*U.ConstantMemory)});
  }
  for (const std::string &F : Files) {
    auto &Entries = ByFile[F];
    std::stable_sort(Entries.begin(), Entries.end(),
                     [](const auto &A, const auto &B) {
                       return archBefore(A.first, B.first);
                     });
    std::vector<std::string> Texts;
    std::map<std::string, std::vector<std::string>> ArchsOf;
    for (const auto &[Arch, Text] : Entries) {
      if (!ArchsOf.count(Text))
        Texts.push_back(Text);
      ArchsOf[Text].push_back(Arch);
    }
    for (const std::string &Text : Texts) {
      std::string Line =
          "constant memory, " + fileNameOf(F) + ": " + Text + " on ";
      for (size_t I = 0; I < ArchsOf[Text].size(); ++I)
        Line += (I ? ", " : "") + ArchsOf[Text][I];
      Lines.push_back(Line);
    }
  }
  return Lines;
}

} // namespace

SummaryTable buildSummary(const Report &R, size_t NameWidth,
                          bool OnlyFindings) {
  SummaryTable T;
  const KernelNames Names(R, NameWidth);
  const SummaryCells S = collectCells(R, Names);
  const size_t Hidden = layOutTable(T, R, Names, S, OnlyFindings);
  const std::vector<std::string> Merged = mergeSameColumns(T);
  addLegend(T, R, S, Hidden, Merged);
  T.ConstantMemory = constantMemoryLines(R);
  T.Failures = parseFailures(R);
  return T;
}

std::vector<std::string> parseFailures(const Report &R) {
  // Per source file (a unit fails the same way on most architectures): its
  // first error.
  std::vector<std::string> Files, Failed;
  std::map<std::string, std::string> FirstError;
  std::map<std::string, bool> Analysed, Stopped;
  for (const UnitReport &U : R.Units) {
    if (std::find(Files.begin(), Files.end(), U.File) == Files.end())
      Files.push_back(U.File);
    if (U.Ok)
      continue;
    if (std::find(Failed.begin(), Failed.end(), U.File) == Failed.end())
      Failed.push_back(U.File);
    Analysed[U.File] = Analysed[U.File] || U.Partial;
    Stopped[U.File] = Stopped[U.File] || U.ParseStopped;
    if (FirstError.count(U.File))
      continue;
    for (const Diagnostic &D : U.Messages)
      if (D.Level == Severity::Error) {
        std::string Where =
            fileNameOf(D.Loc.File.empty() ? U.File : D.Loc.File);
        if (D.Loc.valid())
          Where += ":" + std::to_string(D.Loc.Line) + ":" +
                   std::to_string(D.Loc.Column);
        FirstError[U.File] = Where + ": " + D.Message;
        break;
      }
  }
  if (Failed.empty())
    return {};
  std::vector<std::string> Lines;
  Lines.push_back(
      std::to_string(Failed.size()) + " of " + std::to_string(Files.size()) +
      (Files.size() == 1 ? " unit" : " units") + " failed to parse:");
  bool AnyPartial = false;
  for (const std::string &F : Failed) {
    std::string Line = "  " + fileNameOf(F);
    if (FirstError.count(F))
      Line += " (" + FirstError[F] + ")";
    if (Analysed[F]) {
      Line += ", kernels its errors do not touch analysed";
      AnyPartial = true;
    }
    if (Stopped[F])
      Line += "; after its fatal error Clang reports no error and instantiates "
              "no template";
    Lines.push_back(std::move(Line));
  }
  if (AnyPartial)
    Lines.push_back(
        "  the kernels its errors touch have no figure (? in the table); "
        "--allow-parse-errors makes such units not fail the run");
  return Lines;
}

} // namespace tilefit
