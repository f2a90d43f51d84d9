//===- Suppressions.cpp ---------------------------------------------------===//
#include "tilefit/model/Suppressions.h"

#include "tilefit/model/Checks.h"

#include <algorithm>
#include <map>
#include <set>

namespace tilefit {
namespace {

struct Marker {
  enum Kind { Line, NextLine, Begin, End } K;
  bool All = true;
  std::string List; ///< The text between the parentheses.
  unsigned Column = 0;
};

/// Every NOLINT marker on one line of text.
std::vector<Marker> markersOn(std::string_view L) {
  std::vector<Marker> Out;
  size_t P = 0;
  while ((P = L.find("NOLINT", P)) != std::string_view::npos) {
    Marker M;
    M.Column = static_cast<unsigned>(P + 1);
    size_t After = P + 6;
    std::string_view Rest = L.substr(After);
    if (Rest.substr(0, 8) == "NEXTLINE") {
      M.K = Marker::NextLine;
      After += 8;
    } else if (Rest.substr(0, 5) == "BEGIN") {
      M.K = Marker::Begin;
      After += 5;
    } else if (Rest.substr(0, 3) == "END") {
      M.K = Marker::End;
      After += 3;
    } else {
      M.K = Marker::Line;
    }
    // A NOLINT inside a longer word (NOLINTFOO) is not a marker.
    if (After < L.size() &&
        (isalnum(static_cast<unsigned char>(L[After])) || L[After] == '_')) {
      P = After;
      continue;
    }
    if (After < L.size() && L[After] == '(') {
      size_t Close = L.find(')', After);
      if (Close != std::string_view::npos) {
        M.List = std::string(L.substr(After + 1, Close - After - 1));
        M.All = M.List.find_first_not_of(" \t") == std::string::npos ||
                M.List == "*";
        After = Close + 1;
      }
    }
    Out.push_back(std::move(M));
    P = After;
  }
  return Out;
}

Diagnostic nolintProblem(const std::string &File, unsigned Line,
                         unsigned Column, std::string Message) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = std::string(checkInfo(CheckId::Nolint).Name);
  D.Message = std::move(Message);
  D.Loc = {File, Line, Column};
  return D;
}

} // namespace

NolintMap NolintMap::parse(std::string_view Text, const std::string &File,
                           std::vector<Diagnostic> &Problems) {
  NolintMap Map;
  struct Open {
    unsigned Line, Column;
    Marker M;
  };
  std::vector<Open> Stack;
  unsigned LineNo = 0;
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t End = Text.find('\n', Start);
    std::string_view L = Text.substr(Start, End == std::string_view::npos
                                                ? std::string_view::npos
                                                : End - Start);
    ++LineNo;
    for (Marker &M : markersOn(L)) {
      // A misspelled check would leave its finding standing without a word
      // (an END repeats its BEGIN's list: said once).
      if (M.K != Marker::End && !M.All)
        for (const std::string &Glob : GlobList(M.List).patterns())
          if (auto Close = misspelledNolintCheck(Glob))
            Problems.push_back(nolintProblem(
                File, LineNo, M.Column,
                "'" + Glob + "' in this NOLINT comment matches no check" +
                    (Close->empty() ? std::string(" (tilefit --list-checks lists them)")
                                    : "; did you mean '" + *Close + "'?")));
      Rule R{LineNo, LineNo, M.All, GlobList(M.List)};
      switch (M.K) {
      case Marker::Line:
        Map.Rules.push_back(std::move(R));
        break;
      case Marker::NextLine:
        R.First = R.Last = LineNo + 1;
        Map.Rules.push_back(std::move(R));
        break;
      case Marker::Begin:
        Stack.push_back({LineNo, M.Column, M});
        break;
      case Marker::End: {
        // Matches the innermost BEGIN with the same check list.
        auto It = Stack.rbegin();
        while (It != Stack.rend() && It->M.List != M.List)
          ++It;
        if (It == Stack.rend()) {
          Problems.push_back(
              nolintProblem(File, LineNo, M.Column,
                            "unmatched 'NOLINTEND' comment without a previous "
                            "'NOLINTBEGIN' comment"));
          break;
        }
        Map.Rules.push_back(
            {It->Line, LineNo, It->M.All, GlobList(It->M.List)});
        Stack.erase(std::next(It).base());
        break;
      }
      }
    }
    if (End == std::string_view::npos)
      break;
    Start = End + 1;
  }
  for (const Open &O : Stack)
    Problems.push_back(
        nolintProblem(File, O.Line, O.Column,
                      "unmatched 'NOLINTBEGIN' comment without a subsequent "
                      "'NOLINTEND' comment"));
  return Map;
}

bool NolintMap::suppresses(unsigned Line, std::string_view Check) const {
  for (const Rule &R : Rules)
    if (Line >= R.First && Line <= R.Last &&
        (R.All || R.Checks.contains(Check)))
      return true;
  return false;
}

size_t applySuppressions(
    Report &R,
    const std::function<std::optional<std::string>(const std::string &)>
        &ReadFile) {
  std::map<std::string, std::optional<NolintMap>> Maps;
  std::vector<Diagnostic> Problems;
  auto MapOf = [&](const std::string &File) -> const NolintMap * {
    auto It = Maps.find(File);
    if (It == Maps.end()) {
      std::optional<NolintMap> M;
      if (auto Text = ReadFile(File))
        M = NolintMap::parse(*Text, File, Problems);
      It = Maps.emplace(File, std::move(M)).first;
    }
    return It->second ? &*It->second : nullptr;
  };
  auto Suppressed = [&](const SourcePos &P, const std::string &Check) {
    if (!P.valid() || P.File.empty())
      return false;
    const NolintMap *M = MapOf(P.File);
    return M && M->suppresses(P.Line, Check);
  };
  // A file's unmatched NOLINTBEGIN is a problem where the file has findings of
  // its own, as in clang-tidy; a file read only for a note's line (a kernel's
  // definition, say) says nothing.
  std::set<std::string> WithFindings;
  for (const Diagnostic &D : R.Diagnostics)
    WithFindings.insert(D.Loc.File);
  size_t Before = R.Diagnostics.size();
  R.Diagnostics.erase(std::remove_if(R.Diagnostics.begin(), R.Diagnostics.end(),
                                     [&](const Diagnostic &D) {
                                       if (Suppressed(D.Loc, D.Check))
                                         return true;
                                       for (const Note &N : D.Notes)
                                         if (Suppressed(N.Loc, D.Check))
                                           return true;
                                       return false;
                                     }),
                      R.Diagnostics.end());
  size_t Dropped = Before - R.Diagnostics.size();
  for (Diagnostic &P : Problems)
    if (WithFindings.count(P.Loc.File))
      R.Diagnostics.push_back(std::move(P));
  return Dropped;
}

} // namespace tilefit
