//===- SourceLines.h - Source lines for caret displays ----------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_SOURCELINES_H
#define TILEFIT_REPORTERS_SOURCELINES_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {

/// Reads source files on demand, once each, for the source line under a
/// diagnostic.
class SourceLines {
public:
  virtual ~SourceLines() = default;
  /// Line \p Line (1-based) of \p File without its end of line; nothing if
  /// unreadable.
  virtual std::optional<std::string> line(const std::string &File,
                                          unsigned Line);

private:
  std::map<std::string, std::optional<std::vector<std::string>>> Cache;
};

} // namespace tilefit

#endif
