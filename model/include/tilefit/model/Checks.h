//===- Checks.h - tilefit's checks, from Checks.def -------------*- C++ -*-===//
#ifndef TILEFIT_MODEL_CHECKS_H
#define TILEFIT_MODEL_CHECKS_H

#include "tilefit/model/Facts.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

enum class CheckId {
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help) Enum,
#include "tilefit/model/Checks.def"
};

struct CheckInfo {
  CheckId Id;
  std::string_view Name;        ///< The check's id: `tilefit-static-limit`.
  std::string_view DisplayName; ///< For people: `StaticLimit`.
  Severity DefaultSeverity;
  std::string_view Summary;
  std::string_view Help;
};

const CheckInfo &checkInfo(CheckId Id);
const std::vector<CheckInfo> &allChecks();
std::string_view severityName(Severity S); ///< "error", "warning", "note"

/// The check whose name is closest to \p Name (fewest edits, at most a third
/// of the name's length), or "" where none is close.
std::string_view closestCheck(std::string_view Name);

/// What is wrong with a list of check globs (\p Globs, as given to \p Where:
/// `--checks`, a configuration's `Checks`): a glob that matches no check is
/// named, with the closest check's ("did you mean 'tilefit-budget'?"); where
/// \p MustEnable, a list that enables no check is wrong too, as in clang-tidy.
/// Nothing where the list is fine.
std::optional<std::string> checkListProblem(std::string_view Globs,
                                            std::string_view Where,
                                            bool MustEnable);

/// Whether \p Glob, from a NOLINT comment's list, reads as one of tilefit's
/// checks misspelled: it matches no check, and names tilefit or is close to a
/// check's name. (NOLINT lists are shared with clang-tidy, whose checks are
/// not tilefit's business.) The closest check's name, or nothing.
std::optional<std::string> misspelledNolintCheck(std::string_view Glob);

} // namespace tilefit

#endif
