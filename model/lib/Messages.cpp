//===- Messages.cpp - What a finding's words name, for its renderers ------===//
#include "tilefit/model/Messages.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tilefit {

std::vector<MessageSlot>
messageSlots(const std::string &Message, const std::string &Arch,
             const std::function<bool(std::string_view)> &IsKernel) {
  std::vector<MessageSlot> Slots;
  // Quoted kernel names: from each quote to the next; a quoted text that names
  // no kernel leaves its closing quote to open the next one.
  for (size_t I = 0; I < Message.size();) {
    const size_t Q = Message.find('\'', I);
    if (Q == std::string::npos)
      break;
    const size_t E = Message.find('\'', Q + 1);
    if (E == std::string::npos)
      break;
    if (IsKernel(std::string_view(Message).substr(Q + 1, E - Q - 1))) {
      Slots.push_back({MessageSlot::Kind::Kernel, Q + 1, E - Q - 1});
      I = E + 1;
    } else {
      I = Q + 1;
    }
  }
  if (!Arch.empty()) {
    const size_t Kernels = Slots.size();
    auto InKernel = [&](size_t At) {
      return std::any_of(Slots.begin(), Slots.begin() + Kernels,
                         [&](const MessageSlot &S) {
                           return At >= S.Offset && At < S.Offset + S.Length;
                         });
    };
    for (size_t At = Message.find(Arch); At != std::string::npos;
         At = Message.find(Arch, At + Arch.size())) {
      const size_t End = At + Arch.size();
      if ((End < Message.size() &&
           std::isalnum(static_cast<unsigned char>(Message[End]))) ||
          InKernel(At))
        continue;
      Slots.push_back({MessageSlot::Kind::Arch, At, Arch.size()});
    }
    std::sort(Slots.begin(), Slots.end(),
              [](const MessageSlot &A, const MessageSlot &B) {
                return A.Offset < B.Offset;
              });
  }
  return Slots;
}

void markMessageSlots(Report &R) {
  std::set<std::string, std::less<>> Names;
  for (const KernelReport &K : R.Kernels)
    Names.insert(K.Name);
  auto IsKernel = [&](std::string_view Name) { return Names.count(Name) != 0; };
  auto Mark = [&](Diagnostic &D) {
    D.Slots = messageSlots(D.Message, D.Arch, IsKernel);
    for (Note &N : D.Notes)
      N.Slots = messageSlots(N.Message, D.Arch, IsKernel);
  };
  for (Diagnostic &D : R.Diagnostics)
    Mark(D);
  for (Diagnostic &D : R.ToolMessages)
    Mark(D);
  for (UnitReport &U : R.Units)
    for (Diagnostic &D : U.Messages)
      Mark(D);
}

std::string spellMessage(
    const std::string &Message, const std::vector<MessageSlot> &Slots,
    const std::function<std::string(const MessageSlot &, std::string_view)>
        &Spell) {
  std::string Out;
  size_t From = 0;
  for (const MessageSlot &S : Slots) {
    if (S.Offset < From || S.Offset + S.Length > Message.size())
      continue; // not this message's (a slot set for other words)
    Out.append(Message, From, S.Offset - From);
    Out += Spell(S, std::string_view(Message).substr(S.Offset, S.Length));
    From = S.Offset + S.Length;
  }
  Out.append(Message, std::min(From, Message.size()), std::string::npos);
  return Out;
}

} // namespace tilefit
