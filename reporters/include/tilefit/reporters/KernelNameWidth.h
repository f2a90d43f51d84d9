//===- KernelNameWidth.h - Kernel names as people read them -----*- C++ -*-===//
//
// CuTe and CUTLASS kernels are named by their template arguments: thousands of
// characters (`gemm_device<cute::tuple<int, int, int>,
// cute::tuple<cute::C<128>, ...`). The text and Markdown reports and the editor
// show a readable form that fits a width: `cute::C<128>` as `_128` (CuTe's own
// spelling), `cute::`/`cutlass::` dropped inside template arguments, the
// arguments past the width elided (`gemm_device<tuple<int, int, int>, ...>`),
// and, for kernels whose short forms would be the same, what differs between
// them (NT from TN). JSON and SARIF keep the full names.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_REPORTERS_KERNELNAMEWIDTH_H
#define TILEFIT_REPORTERS_KERNELNAMEWIDTH_H

#include "tilefit/model/Report.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tilefit {

/// The width names get unless --name-width says otherwise.
constexpr size_t DefaultNameWidth = 60;

/// \p Name with `cute::C<N>` as `_N` and `cute::`/`cutlass::` dropped inside
/// template arguments.
std::string readableName(const std::string &Name);

/// readableName(\p Name), at most \p Width characters: template arguments that
/// do not fit are elided as `...`. \p Name itself for a width of 0.
std::string shortName(const std::string &Name, size_t Width);

/// The short names of a report's kernels, distinct. Where full names share a
/// short form, each is told apart by what differs between them, what they
/// share dropped as `...` (within an argument likewise), when that fits twice
/// the width; else the shared form gets `#1`, `#2`, ... in the order of the
/// full names. Either way a kernel's short name does not depend on the
/// report's order.
class KernelNames {
public:
  KernelNames(const Report &R, size_t Width);
  /// The short name of \p Full (itself if it is not a kernel of the report).
  const std::string &of(const std::string &Full) const;
  /// \p Message with the kernel each of its kernel slots names in its short
  /// form.
  std::string inMessage(const std::string &Message,
                        const std::vector<MessageSlot> &Slots) const;
  std::string inMessage(const Diagnostic &D) const {
    return inMessage(D.Message, D.Slots);
  }
  std::string inMessage(const Note &N) const {
    return inMessage(N.Message, N.Slots);
  }

private:
  std::map<std::string, std::string> Short;
};

} // namespace tilefit

#endif
