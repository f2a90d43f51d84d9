//===- GlobList.cpp -------------------------------------------------------===//
#include "tilefit/model/GlobList.h"

namespace tilefit {

bool globMatch(std::string_view P, std::string_view N) {
  // Iterative matching with one backtrack point for the last '*'.
  size_t Pi = 0, Ni = 0, Star = std::string_view::npos, Mark = 0;
  while (Ni < N.size()) {
    if (Pi < P.size() && (P[Pi] == '?' || P[Pi] == N[Ni])) {
      ++Pi;
      ++Ni;
    } else if (Pi < P.size() && P[Pi] == '*') {
      Star = Pi++;
      Mark = Ni;
    } else if (Star != std::string_view::npos) {
      Pi = Star + 1;
      Ni = ++Mark;
    } else {
      return false;
    }
  }
  while (Pi < P.size() && P[Pi] == '*')
    ++Pi;
  return Pi == P.size();
}

GlobList::GlobList(std::string_view Text) {
  // Globs are separated by commas or new lines (clang-tidy's, since version
  // 15), and blanks around a glob and after its `-` do not count.
  auto Blank = [](char C) {
    return C == ' ' || C == '\t' || C == '\r' || C == '\n';
  };
  auto Trim = [&](std::string_view &Part) {
    while (!Part.empty() && Blank(Part.front()))
      Part.remove_prefix(1);
    while (!Part.empty() && Blank(Part.back()))
      Part.remove_suffix(1);
  };
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Sep = Text.find_first_of(",\n", Start);
    std::string_view Part = Text.substr(Start, Sep == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : Sep - Start);
    Trim(Part);
    if (!Part.empty()) {
      bool Positive = Part.front() != '-';
      if (!Positive) {
        Part.remove_prefix(1);
        Trim(Part);
      }
      if (!Part.empty())
        Items.push_back({Positive, std::string(Part)});
    }
    if (Sep == std::string_view::npos)
      break;
    Start = Sep + 1;
  }
}

std::vector<std::string> GlobList::patterns() const {
  std::vector<std::string> Out;
  for (const Item &I : Items)
    Out.push_back(I.Pattern);
  return Out;
}

bool GlobList::contains(std::string_view Name) const {
  for (auto It = Items.rbegin(); It != Items.rend(); ++It)
    if (globMatch(It->Pattern, Name))
      return It->Positive;
  return false;
}

} // namespace tilefit
