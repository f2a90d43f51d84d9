//===- Reason.h - Why something is not known, as a kind and arguments -*- C++
//-*-===//
//
// The front end and the matchers do not write sentences. Where a figure cannot
// be known (a `__shared__` size, a launch's dynamic bytes, a Tensor Memory
// column count) or a name may differ from nvcc's, they record a Reason: a kind
// from Reasons.def, its arguments, and the reason it rests on. The model words
// it (describe) where it makes the report, as Clang's diagnostics engine words
// a diagnostic from its table and its %0 arguments. Changing the words needs no
// change in the matchers and no new cache format.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_REASON_H
#define TILEFIT_MODEL_REASON_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

enum class ReasonKind {
  None, ///< Nothing unknown.
#define TILEFIT_REASON(Enum, Id, Text) Enum,
#include "tilefit/model/Reasons.def"
};

struct Reason {
  ReasonKind Kind = ReasonKind::None;
  std::vector<std::string> Args; ///< %0, %1, ... of the kind's words.
  /// The reason this one rests on (%because): at most one.
  std::vector<Reason> Because;

  Reason() = default;
  Reason(ReasonKind Kind, std::vector<std::string> Args = {})
      : Kind(Kind), Args(std::move(Args)) {}
  /// \p Kind resting on \p Cause.
  static Reason resting(ReasonKind Kind, Reason Cause) {
    Reason R(Kind);
    R.Because.push_back(std::move(Cause));
    return R;
  }

  bool empty() const { return Kind == ReasonKind::None; }
  void clear() { *this = Reason(); }
  friend bool operator==(const Reason &A, const Reason &B) {
    return A.Kind == B.Kind && A.Args == B.Args && A.Because == B.Because;
  }
  friend bool operator!=(const Reason &A, const Reason &B) { return !(A == B); }
};

/// The words of \p R ("" for none): its kind's text with its arguments and the
/// words of the reason it rests on.
std::string describe(const Reason &R);

/// The stable name of \p K in JSON (`dynamic-size-not-constant`); "" for None.
std::string_view reasonId(ReasonKind K);
/// The kind named \p Id; nothing for a name no kind has.
std::optional<ReasonKind> reasonKind(std::string_view Id);

} // namespace tilefit

#endif
