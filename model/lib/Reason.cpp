//===- Reason.cpp - Why something is not known, worded
//---------------------===//
#include "tilefit/model/Reason.h"

#include <cctype>

namespace tilefit {
namespace {

struct KindInfo {
  ReasonKind Kind;
  std::string_view Id;
  std::string_view Text;
};

constexpr KindInfo Kinds[] = {
#define TILEFIT_REASON(Enum, Id, Text) {ReasonKind::Enum, Id, Text},
#include "tilefit/model/Reasons.def"
};

const KindInfo *info(ReasonKind K) {
  for (const KindInfo &I : Kinds)
    if (I.Kind == K)
      return &I;
  return nullptr;
}

} // namespace

std::string describe(const Reason &R) {
  const KindInfo *I = info(R.Kind);
  if (!I)
    return "";
  static constexpr std::string_view BecauseMark = "%because";
  std::string Out;
  const std::string_view Text = I->Text;
  for (size_t At = 0; At < Text.size();) {
    if (Text[At] != '%') {
      Out += Text[At++];
      continue;
    }
    if (Text.substr(At, BecauseMark.size()) == BecauseMark) {
      Out += R.Because.empty() ? std::string("unknown")
                               : describe(R.Because.front());
      At += BecauseMark.size();
      continue;
    }
    size_t End = At + 1;
    size_t Index = 0;
    while (End < Text.size() &&
           std::isdigit(static_cast<unsigned char>(Text[End])))
      Index = Index * 10 + static_cast<size_t>(Text[End++] - '0');
    if (End == At + 1) { // a '%' that marks nothing
      Out += Text[At++];
      continue;
    }
    Out += Index < R.Args.size() ? R.Args[Index] : std::string("?");
    At = End;
  }
  return Out;
}

std::string_view reasonId(ReasonKind K) {
  const KindInfo *I = info(K);
  return I ? I->Id : std::string_view();
}

std::optional<ReasonKind> reasonKind(std::string_view Id) {
  for (const KindInfo &I : Kinds)
    if (I.Id == Id)
      return I.Kind;
  return std::nullopt;
}

} // namespace tilefit
