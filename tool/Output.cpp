//===- Output.cpp ---------------------------------------------------------===//
#include "Output.h"

#include "tilefit/driver/Analyze.h"

#include "tilefit/model/Analysis.h"
#include "tilefit/model/ReportJson.h"
#include "tilefit/reporters/MarkdownReporter.h"
#include "tilefit/reporters/SarifReporter.h"
#include "tilefit/reporters/TextReporter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tilefit {
namespace tool {

std::optional<OutputFormat> parseFormat(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<OutputFormat>>(Name)
      .Case("text", OutputFormat::Text)
      .Case("json", OutputFormat::Json)
      .Case("sarif", OutputFormat::Sarif)
      .Cases("markdown", "md", OutputFormat::Markdown)
      .Default(std::nullopt);
}

std::optional<OutputFormat> formatForPath(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return llvm::StringSwitch<std::optional<OutputFormat>>(Ext.lower())
      .Case(".sarif", OutputFormat::Sarif)
      .Case(".json", OutputFormat::Json)
      .Cases(".md", ".markdown", OutputFormat::Markdown)
      .Case(".txt", OutputFormat::Text)
      .Default(std::nullopt);
}

void writeReport(const Report &R, const OutputSettings &S, std::ostream &OS) {
  ToolInfo Info;
  Info.Version = TILEFIT_VERSION;
  SourceLines Lines;
  switch (S.Format) {
  case OutputFormat::Json:
    renderJson(R, Info, OS);
    break;
  case OutputFormat::Sarif: {
    SarifOptions Opts;
    Opts.SourceRoot = S.SourceRoot;
    Opts.InformationUri = TILEFIT_INFORMATION_URI;
    renderSarif(R, Info, Opts, Lines, OS);
    break;
  }
  case OutputFormat::Markdown:
    renderMarkdown(R, S.SourceRoot, OS, S.NameWidth, S.OnlyFindings);
    break;
  case OutputFormat::Text:
    renderText(R, Lines, OS, S.NameWidth, S.OnlyFindings);
    break;
  }
}

std::string defaultSourceRoot(const std::string &BuildPath, const Report &R) {
  return driver::projectRoot(BuildPath, R);
}

std::optional<Severity> severityNamed(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<Severity>>(Name)
      .Case("error", Severity::Error)
      .Case("warning", Severity::Warning)
      .Case("note", Severity::Note)
      .Default(std::nullopt);
}

std::string writeFile(const std::string &Path,
                      llvm::function_ref<void(std::ostream &)> Write) {
  errno = 0;
  std::ofstream Out(Path, std::ios::binary);
  if (!Out)
    return errno ? std::strerror(errno) : "it cannot be opened";
  Write(Out);
  Out.flush();
  if (!Out.good())
    return errno ? std::strerror(errno) : "writing it failed";
  Out.close();
  if (Out.fail())
    return errno ? std::strerror(errno) : "closing it failed";
  return "";
}

int exitStatus(const Report &R, bool Failed, Severity FailLevel) {
  if (Failed)
    return 2;
  auto Worst = worstSeverity(R);
  return Worst && static_cast<int>(*Worst) >= static_cast<int>(FailLevel) ? 1
                                                                          : 0;
}

} // namespace tool
} // namespace tilefit
