//===- GlobList.h - clang-tidy's check lists --------------------*- C++ -*-===//
//
// `tilefit-*,-tilefit-budget`: globs separated by commas or new lines (`*`
// matches anything), each optionally negated with `-`; a name matches the list
// when the last glob that matches it is positive. The same semantics as
// clang-tidy's -checks and -warnings-as-errors.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_GLOBLIST_H
#define TILEFIT_MODEL_GLOBLIST_H

#include <string>
#include <string_view>
#include <vector>

namespace tilefit {

/// Whether \p Name matches the glob \p Pattern (`*` any run of characters, `?`
/// one).
bool globMatch(std::string_view Pattern, std::string_view Name);

class GlobList {
public:
  GlobList() = default;
  explicit GlobList(std::string_view Text);
  bool contains(std::string_view Name) const;
  bool empty() const { return Items.empty(); }
  /// The globs as written, without their `-`, in order.
  std::vector<std::string> patterns() const;

private:
  struct Item {
    bool Positive;
    std::string Pattern;
  };
  std::vector<Item> Items;
};

} // namespace tilefit

#endif
