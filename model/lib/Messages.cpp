//===- Messages.cpp - What a finding's words name, for its renderers ------===//
#include "tilefit/model/Messages.h"

#include <algorithm>

namespace tilefit {

Words &Words::operator+=(const Words &More) {
  for (MessageSlot S : More.Slots) {
    S.Offset += Text.size();
    Slots.push_back(S);
  }
  Text += More.Text;
  return *this;
}

Words kernelWord(std::string Name) {
  Words W(std::move(Name));
  W.Slots.push_back({MessageSlot::Kind::Kernel, 0, W.Text.size()});
  return W;
}

Words archWord(std::string Arch) {
  Words W(std::move(Arch));
  if (!W.Text.empty())
    W.Slots.push_back({MessageSlot::Kind::Arch, 0, W.Text.size()});
  return W;
}

Note makeNote(Words Message, SourcePos Loc) {
  Note N;
  N.Message = Message.text();
  N.Loc = std::move(Loc);
  N.Slots = Message.slots();
  return N;
}

void setMessage(Diagnostic &D, Words Message) {
  D.Message = Message.text();
  D.Slots = Message.slots();
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
