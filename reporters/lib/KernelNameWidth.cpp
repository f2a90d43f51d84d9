//===- KernelNameWidth.cpp - Kernel names as people read them -------------===//
#include "tilefit/reporters/KernelNameWidth.h"

#include "tilefit/model/Messages.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <vector>

namespace tilefit {

namespace {

bool startsAt(const std::string &S, size_t At, const char *Prefix) {
  return S.compare(At, std::char_traits<char>::length(Prefix), Prefix) == 0;
}

bool identifierChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

/// \p R (a readable name) as its head up to its first template argument
/// list's `<` (not `operator<`), the arguments of that list at depth 1, and
/// the rest from its `>`; false where it has no such list.
bool splitArguments(const std::string &R, std::string &Head,
                    std::vector<std::string> &Args, std::string &Tail) {
  size_t Open = R.find('<');
  while (Open != std::string::npos && Open >= 8 &&
         R.compare(Open - 8, 8, "operator") == 0)
    Open = R.find('<', Open + 1);
  if (Open == std::string::npos)
    return false;
  Args.clear();
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
  Head = R.substr(0, Open + 1);
  Tail = Close == std::string::npos ? ">" : R.substr(Close);
  return true;
}

/// What tells \p Names (readable names, distinct) apart, one form each: of
/// names of one template with as many arguments, the arguments that differ
/// (each told apart the same way, within it), and `...` for each run of
/// arguments they share. Nothing where the names are not so alike.
std::optional<std::vector<std::string>>
distinguish(const std::vector<std::string> &Names) {
  const size_t N = Names.size();
  std::vector<std::string> Heads(N), Tails(N);
  std::vector<std::vector<std::string>> Args(N);
  for (size_t I = 0; I < N; ++I)
    if (!splitArguments(Names[I], Heads[I], Args[I], Tails[I]) ||
        Heads[I] != Heads[0] || Tails[I] != Tails[0] ||
        Args[I].size() != Args[0].size())
      return std::nullopt;
  std::vector<std::vector<std::string>> Parts(N); // "" marks a shared one
  for (size_t J = 0; J < Args[0].size(); ++J) {
    std::vector<std::string> Column;
    for (size_t I = 0; I < N; ++I)
      Column.push_back(Args[I][J]);
    if (std::all_of(Column.begin(), Column.end(),
                    [&](const std::string &A) { return A == Column[0]; })) {
      for (size_t I = 0; I < N; ++I)
        Parts[I].push_back("");
      continue;
    }
    std::vector<std::string> Unique = Column;
    std::sort(Unique.begin(), Unique.end());
    Unique.erase(std::unique(Unique.begin(), Unique.end()), Unique.end());
    std::optional<std::vector<std::string>> Inner = distinguish(Unique);
    for (size_t I = 0; I < N; ++I) {
      size_t U = std::lower_bound(Unique.begin(), Unique.end(), Column[I]) -
                 Unique.begin();
      Parts[I].push_back(Inner ? (*Inner)[U] : Column[I]);
    }
  }
  std::vector<std::string> Out;
  for (size_t I = 0; I < N; ++I) {
    std::string Joined;
    bool LastShared = false;
    for (const std::string &P : Parts[I]) {
      if (P.empty() && LastShared)
        continue;
      Joined += (Joined.empty() ? "" : ", ") + (P.empty() ? "..." : P);
      LastShared = P.empty();
    }
    Out.push_back(Heads[I] + Joined + Tails[I]);
  }
  return Out;
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
  std::string Head, Tail;
  std::vector<std::string> Args;
  if (!splitArguments(R, Head, Args, Tail) || Head.size() + 4 > Width)
    return R.substr(0, Width > 3 ? Width - 3 : Width) + "...";
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
  std::set<std::string> Taken;
  for (const auto &[S, Fulls] : FullsOf)
    if (Fulls.size() == 1)
      Taken.insert(S);
  for (auto &[S, Fulls] : FullsOf) {
    if (Fulls.size() < 2)
      continue;
    // What differs between the instantiations, what they share dropped (NT
    // from TN: their layouts); numbered in the order of their full names
    // where that does not tell them apart within twice the width. Either way a
    // name's short form depends on the report's names, not on their order.
    std::sort(Fulls.begin(), Fulls.end());
    std::vector<std::string> Readable;
    for (const std::string &F : Fulls)
      Readable.push_back(readableName(F));
    std::optional<std::vector<std::string>> Apart = distinguish(Readable);
    if (Apart) {
      std::set<std::string> Seen(Apart->begin(), Apart->end());
      bool Usable = Seen.size() == Fulls.size();
      for (const std::string &A : *Apart)
        Usable = Usable && A.size() <= 2 * Width && !Taken.count(A);
      if (!Usable)
        Apart.reset();
    }
    for (size_t I = 0; I < Fulls.size(); ++I) {
      Short[Fulls[I]] = Apart ? (*Apart)[I] : S + "#" + std::to_string(I + 1);
      Taken.insert(Short[Fulls[I]]);
    }
  }
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
