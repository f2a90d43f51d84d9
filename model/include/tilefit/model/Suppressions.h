//===- Suppressions.h -------------------------------------------*- C++ -*-===//
//
// NOLINT comments, as clang-tidy reads them.
//
// `// NOLINT`, `// NOLINT(tilefit-budget)`, `// NOLINTNEXTLINE(tilefit-*)` and
// `// NOLINTBEGIN(...)` ... `// NOLINTEND(...)`, with clang-tidy's semantics:
// the check list is a comma-separated list of globs, none means every check; a
// BEGIN needs an END with the same list after it, and an END a BEGIN before it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_SUPPRESSIONS_H
#define TILEFIT_MODEL_SUPPRESSIONS_H

#include "tilefit/model/GlobList.h"
#include "tilefit/model/Report.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// The NOLINT comments of one file.
class NolintMap {
public:
  /// Reads \p Text; unmatched NOLINTBEGIN/NOLINTEND comments are added to \p
  /// Problems.
  static NolintMap parse(std::string_view Text, const std::string &File,
                         std::vector<Diagnostic> &Problems);
  bool suppresses(unsigned Line, std::string_view Check) const;

private:
  struct Rule {
    unsigned First, Last; ///< Lines, 1-based, inclusive.
    bool All;             ///< No check list: every check.
    GlobList Checks;
  };
  std::vector<Rule> Rules;
};

/// Drops the findings a NOLINT comment suppresses: at the line a finding points
/// to (the kernel or the launch), or at the line of one of its notes (an
/// allocation, a launch, an opt-in). \p ReadFile gives a file's text, or
/// nothing if unreadable. Unmatched BEGIN/END comments become findings. Returns
/// how many findings were dropped.
size_t applySuppressions(
    Report &R,
    const std::function<std::optional<std::string>(const std::string &)>
        &ReadFile);

} // namespace tilefit

#endif
