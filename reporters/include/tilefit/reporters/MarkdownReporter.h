//===- MarkdownReporter.h ---------------------------------------*- C++ -*-===//
// Tables for pull requests and job summaries.
#ifndef TILEFIT_REPORTERS_MARKDOWNREPORTER_H
#define TILEFIT_REPORTERS_MARKDOWNREPORTER_H

#include "tilefit/model/Report.h"

#include <cstddef>
#include <ostream>
#include <string>

namespace tilefit {

/// The per-kernel, per-architecture table and the findings, as GitHub-flavoured
/// Markdown. Paths under \p SourceRoot are written relative to it.
/// \p NameWidth: kernel names past it are shortened (KernelNameWidth.h); 0
/// keeps them whole.
void renderMarkdown(const Report &R, const std::string &SourceRoot,
                    std::ostream &OS, size_t NameWidth = 0,
                    bool OnlyFindings = false);

/// A path relative to \p Root when under it (for reports meant for people).
std::string relativeTo(const std::string &File, const std::string &Root);

} // namespace tilefit

#endif
