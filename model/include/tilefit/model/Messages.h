//===- Messages.h -----------------------------------------------*- C++ -*-===//
//
// What a finding's words name, for its renderers.
//
// The checks write whole sentences with full names (`kernel 'gemm<128, 64>'
// uses ... on sm_90`). The renderers spell two things their own way: the text
// report and the editor shorten kernel names (KernelNameWidth.h), and the
// editor merges a finding that is the same on several architectures into one
// naming them. So a check composes its message from Words, which know where
// they name a kernel (kernelWord) or the finding's architecture (archWord), as
// Clang's diagnostics know their %0 arguments; the diagnostic keeps those
// slots (Diagnostic::Slots, Note::Slots), the JSON report carries them, and
// renderers compose from them (spellMessage). No layer searches another's
// sentences for names.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_MESSAGES_H
#define TILEFIT_MODEL_MESSAGES_H

#include "tilefit/model/Facts.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// Words of a message with the slots where they name a kernel or an
/// architecture. Plain text converts to Words without slots.
class Words {
public:
  Words() = default;
  Words(const char *Text) : Text(Text) {}
  Words(std::string Text) : Text(std::move(Text)) {}

  Words &operator+=(const Words &More);
  friend Words operator+(Words A, const Words &B) {
    A += B;
    return A;
  }

  const std::string &text() const { return Text; }
  const std::vector<MessageSlot> &slots() const { return Slots; }
  bool empty() const { return Text.empty(); }

private:
  friend Words kernelWord(std::string Name);
  friend Words archWord(std::string Arch);
  std::string Text;
  std::vector<MessageSlot> Slots;
};

/// \p Name, a kernel of the report, as a renderer may shorten it.
Words kernelWord(std::string Name);
/// \p Arch, the finding's architecture, as the editor may merge it.
Words archWord(std::string Arch);

/// A note saying \p Message at \p Loc, its slots kept.
Note makeNote(Words Message, SourcePos Loc);
/// Sets \p D's message and its slots.
void setMessage(Diagnostic &D, Words Message);

/// \p Message with each slot's text replaced by what \p Spell returns for it
/// (given the slot and its text).
std::string spellMessage(
    const std::string &Message, const std::vector<MessageSlot> &Slots,
    const std::function<std::string(const MessageSlot &, std::string_view)>
        &Spell);

} // namespace tilefit

#endif
