//===- SourceLines.cpp ----------------------------------------------------===//
#include "tilefit/reporters/SourceLines.h"

#include <fstream>

namespace tilefit {

std::optional<std::string> SourceLines::line(const std::string &File,
                                             unsigned Line) {
  auto It = Cache.find(File);
  if (It == Cache.end()) {
    std::optional<std::vector<std::string>> Lines;
    std::ifstream In(File, std::ios::binary);
    if (In) {
      Lines.emplace();
      std::string L;
      while (std::getline(In, L)) {
        if (!L.empty() && L.back() == '\r')
          L.pop_back();
        Lines->push_back(std::move(L));
      }
    }
    It = Cache.emplace(File, std::move(Lines)).first;
  }
  if (!It->second || Line == 0 || Line > It->second->size())
    return std::nullopt;
  return (*It->second)[Line - 1];
}

} // namespace tilefit
