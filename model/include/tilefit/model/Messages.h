//===- Messages.h -----------------------------------------------*- C++ -*-===//
//
// What a finding's words name, for its renderers.
//
// The checks write whole sentences with full names (`kernel 'gemm<128, 64>'
// uses ... on sm_90`). The renderers spell two things their own way: the text
// report and the editor shorten kernel names (KernelNameWidth.h), and the
// editor merges a finding that is the same on several architectures into one
// naming them. The model marks, once per report, where each message names a
// kernel of the report (quoted) and the finding's architecture; renderers then
// compose from the marks (spellMessage) and no layer rewrites another's words.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_MESSAGES_H
#define TILEFIT_MODEL_MESSAGES_H

#include "tilefit/model/Report.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// The slots of \p Message: each quoted name ('...') that \p IsKernel accepts,
/// and each occurrence of \p Arch not followed by a letter or digit and outside
/// a kernel's name.
std::vector<MessageSlot>
messageSlots(const std::string &Message, const std::string &Arch,
             const std::function<bool(std::string_view)> &IsKernel);

/// Sets the slots of every finding, note and unit message of \p R (its kernels'
/// names, each finding's architecture). finalizeReport and the JSON reader call
/// it.
void markMessageSlots(Report &R);

/// \p Message with each slot's text replaced by what \p Spell returns for it
/// (given the slot and its text).
std::string spellMessage(
    const std::string &Message, const std::vector<MessageSlot> &Slots,
    const std::function<std::string(const MessageSlot &, std::string_view)>
        &Spell);

} // namespace tilefit

#endif
