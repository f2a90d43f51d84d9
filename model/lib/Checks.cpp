//===- Checks.cpp ---------------------------------------------------------===//
#include "tilefit/model/Checks.h"

#include "tilefit/model/GlobList.h"

#include <algorithm>
#include <cctype>

namespace tilefit {

const std::vector<CheckInfo> &allChecks() {
  static const std::vector<CheckInfo> Checks = {
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)                          \
  {CheckId::Enum, Name, #Enum, Severity::Sev, Summary, Help},
#include "tilefit/model/Checks.def"
  };
  return Checks;
}

const CheckInfo &checkInfo(CheckId Id) {
  return allChecks()[static_cast<size_t>(Id)];
}

std::string_view severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Remark:
    return "remark";
  case Severity::Note:
    return "note";
  }
  return "error";
}

namespace {

/// Levenshtein distance, case aside.
size_t editDistance(std::string_view A, std::string_view B) {
  std::vector<size_t> Row(B.size() + 1);
  for (size_t J = 0; J <= B.size(); ++J)
    Row[J] = J;
  for (size_t I = 1; I <= A.size(); ++I) {
    size_t Diagonal = Row[0];
    Row[0] = I;
    for (size_t J = 1; J <= B.size(); ++J) {
      const size_t Above = Row[J];
      const bool Same = std::tolower(static_cast<unsigned char>(A[I - 1])) ==
                        std::tolower(static_cast<unsigned char>(B[J - 1]));
      Row[J] = std::min({Row[J - 1] + 1, Above + 1, Diagonal + (Same ? 0 : 1)});
      Diagonal = Above;
    }
  }
  return Row[B.size()];
}

bool matchesSomeCheck(std::string_view Glob) {
  for (const CheckInfo &C : allChecks())
    if (globMatch(Glob, C.Name))
      return true;
  return false;
}

std::string unknownGlob(const std::string &Glob, std::string_view Where) {
  std::string Msg = std::string(Where) + ": '" + Glob + "' matches no check";
  std::string_view Close = closestCheck(Glob);
  if (!Close.empty())
    Msg += "; did you mean '" + std::string(Close) + "'?";
  else
    Msg += " (tilefit --list-checks lists them)";
  return Msg;
}

} // namespace

std::string_view closestCheck(std::string_view Name) {
  std::string_view Best;
  size_t BestDistance = Name.size() / 3 + 1;
  for (const CheckInfo &C : allChecks()) {
    const size_t D = editDistance(Name, C.Name);
    if (D < BestDistance) {
      BestDistance = D;
      Best = C.Name;
    }
  }
  return Best;
}

std::optional<std::string> checkListProblem(std::string_view Globs,
                                            std::string_view Where,
                                            bool MustEnable) {
  const GlobList List(Globs);
  for (const std::string &Glob : List.patterns())
    if (!matchesSomeCheck(Glob))
      return unknownGlob(Glob, Where);
  if (MustEnable &&
      std::none_of(allChecks().begin(), allChecks().end(),
                   [&](const CheckInfo &C) { return List.contains(C.Name); }))
    return std::string(Where) + ": '" + std::string(Globs) +
           "' enables no check (tilefit --list-checks lists them)";
  return std::nullopt;
}

std::optional<std::string> misspelledNolintCheck(std::string_view Glob) {
  if (Glob.empty() || matchesSomeCheck(Glob))
    return std::nullopt;
  std::string Lower(Glob);
  std::transform(Lower.begin(), Lower.end(), Lower.begin(), [](char C) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  });
  std::string_view Close = closestCheck(Glob);
  // Another tool's check a few letters from one of tilefit's is not taken for
  // a typo unless it is very close.
  const bool Ours = Lower.rfind("tilefit", 0) == 0;
  if (!Ours && (Close.empty() || editDistance(Glob, Close) > 2))
    return std::nullopt;
  return std::string(Close);
}

} // namespace tilefit
