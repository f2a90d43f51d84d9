//===- Output.h - Writing the report, and the exit status -------*- C++ -*-===//
#ifndef TILEFIT_TOOL_OUTPUT_H
#define TILEFIT_TOOL_OUTPUT_H

#include "tilefit/model/Report.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tilefit {
namespace tool {

enum class OutputFormat { Text, Json, Sarif, Markdown };

/// `text`, `json`, `sarif`, `markdown`.
std::optional<OutputFormat> parseFormat(llvm::StringRef Name);
/// The format a file name asks for: .sarif, .json, .md, .txt.
std::optional<OutputFormat> formatForPath(llvm::StringRef Path);

struct OutputSettings {
  OutputFormat Format = OutputFormat::Text;
  std::string SourceRoot; ///< For SARIF URIs and Markdown paths.
  size_t NameWidth =
      0; ///< Text and Markdown: kernel names past it are shortened.
  bool OnlyFindings = false; ///< Text and Markdown: --summary=findings.
};

/// Renders \p R in the chosen format.
void writeReport(const Report &R, const OutputSettings &S, std::ostream &OS);

/// The source root: CMake's source folder for a CMake build folder, else the
/// deepest folder holding every unit's file, else the current folder.
std::string defaultSourceRoot(const std::string &BuildPath, const Report &R);

/// Writes what \p Write puts in a stream to the file \p Path, created or
/// replaced: "" when it is written, else why not, as the system says it ("No
/// such file or directory" for a folder that does not exist).
std::string writeFile(const std::string &Path,
                      llvm::function_ref<void(std::ostream &)> Write);

/// The level a finding must reach to fail a run: `error`, `warning` or
/// `note` (--fail-on, TILEFIT_LAUNCH_FAIL_ON); nothing for another word.
std::optional<Severity> severityNamed(llvm::StringRef Name);

/// tilefit's exit status: 2 for failed units, else 1 when a finding is at or
/// above \p FailLevel (notes count with remarks), else 0.
int exitStatus(const Report &R, bool Failed, Severity FailLevel);

} // namespace tool
} // namespace tilefit

#endif
