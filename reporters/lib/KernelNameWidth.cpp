//===- KernelNameWidth.cpp - Kernel names as people read them -------------===//
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/model/Messages.h"

#include <cctype>
#include <vector>

namespace tilefit {

namespace {

bool startsAt(const std::string &S, size_t At, const char *Prefix) {
  return S.compare(At, std::char_traits<char>::length(Prefix), Prefix) == 0;
}

bool identifierChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

} // namespace

std::string readableName(const std::string &Name) {
  std::string Out;
  Out.reserve(Name.size());
  int Depth = 0;
  for (size_t I = 0; I < Name.size();) {
    const bool WordStart =
        I == 0 || (!identifierChar(Name[I - 1]) && Name[I - 1] != ':');
    if (Depth > 0 && WordStart && startsAt(Name, I, "cute::C<")) {
      size_t J = I + 8, End = J;
      if (End < Name.size() && Name[End] == '-')
        ++End;
      while (End < Name.size() &&
             std::isdigit(static_cast<unsigned char>(Name[End])))
        ++End;
      if (End > J && End < Name.size() && Name[End] == '>') {
        Out += "_" + Name.substr(J, End - J);
        I = End + 1;
        continue;
      }
    }
    if (Depth > 0 && WordStart) {
      if (startsAt(Name, I, "cute::")) {
        I += 6;
        continue;
      }
      if (startsAt(Name, I, "cutlass::")) {
        I += 9;
        continue;
      }
    }
    const char C = Name[I];
    if (C == '<')
      ++Depth;
    else if (C == '>' && Depth > 0)
      --Depth;
    Out += C;
    ++I;
  }
  return Out;
}

std::string shortName(const std::string &Name, size_t Width) {
  if (Width == 0)
    return Name;
  std::string R = readableName(Name);
  if (R.size() <= Width)
    return R;
  // The first template argument list at depth 0 (not `operator<`).
  size_t Open = R.find('<');
  while (Open != std::string::npos && Open >= 8 &&
         R.compare(Open - 8, 8, "operator") == 0)
    Open = R.find('<', Open + 1);
  if (Open == std::string::npos || Open + 5 > Width)
    return R.substr(0, Width > 3 ? Width - 3 : Width) + "...";
  std::vector<std::string> Args;
  size_t Close = std::string::npos;
  int Depth = 0;
  size_t Start = Open + 1;
  for (size_t I = Open; I < R.size(); ++I) {
    const char C = R[I];
    if (C == '<' || C == '(' || C == '[') {
      ++Depth;
    } else if (C == '>' || C == ')' || C == ']') {
      if (--Depth == 0) {
        Args.push_back(R.substr(Start, I - Start));
        Close = I;
        break;
      }
    } else if (C == ',' && Depth == 1) {
      Args.push_back(R.substr(Start, I - Start));
      Start = I + 1;
      while (Start < R.size() && R[Start] == ' ')
        ++Start;
    }
  }
  const std::string Head = R.substr(0, Open + 1);
  const std::string Tail = Close == std::string::npos ? ">" : R.substr(Close);
  std::string Kept;
  for (const std::string &A : Args) {
    std::string Next = Kept.empty() ? A : Kept + ", " + A;
    if (Head.size() + Next.size() + std::string(", ...").size() + Tail.size() >
        Width)
      break;
    Kept = std::move(Next);
  }
  std::string Out = Head + (Kept.empty() ? "..." : Kept + ", ...") + Tail;
  if (Out.size() > Width)
    Out = Head + "..." + ">";
  if (Out.size() > Width)
    Out = R.substr(0, Width > 3 ? Width - 3 : Width) + "...";
  return Out;
}

KernelNames::KernelNames(const Report &R, size_t Width) {
  if (Width == 0)
    return; // every name is its own
  std::map<std::string, std::vector<std::string>> FullsOf;
  for (const KernelReport &K : R.Kernels) {
    if (Short.count(K.Name))
      continue;
    std::string S = shortName(K.Name, Width);
    Short[K.Name] = S;
    FullsOf[S].push_back(K.Name);
  }
  for (const auto &[S, Fulls] : FullsOf)
    if (Fulls.size() > 1)
      for (size_t I = 0; I < Fulls.size(); ++I)
        Short[Fulls[I]] = S + "#" + std::to_string(I + 1);
}

const std::string &KernelNames::of(const std::string &Full) const {
  auto It = Short.find(Full);
  return It == Short.end() ? Full : It->second;
}

std::string
KernelNames::inMessage(const std::string &Message,
                       const std::vector<MessageSlot> &Slots) const {
  return spellMessage(
      Message, Slots, [&](const MessageSlot &S, std::string_view Text) {
        return S.K == MessageSlot::Kind::Kernel ? of(std::string(Text))
                                                : std::string(Text);
      });
}

} // namespace tilefit
