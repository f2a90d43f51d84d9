//===- Arch.cpp -----------------------------------------------------------===//
#include "tilefit/model/Arch.h"

#include <cctype>

namespace tilefit {

std::string Arch::baseName() const { return "sm_" + std::to_string(Number); }

std::string Arch::name() const {
  std::string N = baseName();
  if (Suffix)
    N += Suffix;
  return N;
}

std::string Arch::computeCapability() const {
  return std::to_string(Number / 10) + "." + std::to_string(Number % 10);
}

std::optional<Arch> parseArch(std::string_view Text) {
  for (std::string_view Prefix : {"sm_", "compute_"})
    if (Text.substr(0, Prefix.size()) == Prefix) {
      Text.remove_prefix(Prefix.size());
      break;
    }
  Arch A;
  size_t I = 0;
  while (I < Text.size() && std::isdigit(static_cast<unsigned char>(Text[I]))) {
    A.Number = A.Number * 10 + (Text[I] - '0');
    if (A.Number > 10000)
      return std::nullopt;
    ++I;
  }
  // Two or three digits: sm_75 .. sm_121.
  if (I < 2 || I > 3)
    return std::nullopt;
  if (I < Text.size()) {
    if (I + 1 != Text.size() || (Text[I] != 'a' && Text[I] != 'f'))
      return std::nullopt;
    A.Suffix = Text[I];
  }
  return A;
}

const std::vector<std::string> &nvccRealArchs() {
  static const std::vector<std::string> Archs = {
      "sm_75", "sm_80",  "sm_86",  "sm_87",  "sm_88",  "sm_89",
      "sm_90", "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"};
  return Archs;
}

} // namespace tilefit
