//===- IncludePrefix.h - The #include lines units start with ----*- C++ -*-===//
//
// Many units of a project start with the same heavy headers (CUB, cooperative
// groups, cuda/pipeline, CuTe, the project's own common header). The front end
// precompiles the longest run of leading #include lines that a unit shares with
// another unit parsed with the same options (HeaderPch.h), once, and every unit
// that starts so loads it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_INCLUDEPREFIX_H
#define TILEFIT_FRONTEND_INCLUDEPREFIX_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tilefit {
namespace frontend {

/// The `#include` directives \p Text starts with, each as `#include "name"` or
/// `#include <name>`, before anything else but blank lines, comments and
/// `#pragma once`. A line the scan does not understand (a continuation, a
/// macro-named include, a directive of another kind) ends it.
std::vector<std::string> leadingIncludes(llvm::StringRef Text);

/// \p Lines (from leadingIncludes) as a file outside \p Dir must write them to
/// include what a unit in \p Dir does: a quoted name found in \p Dir with the
/// folder (`#include "/src/common.cuh"`, spelled as Clang names the file when
/// the unit includes it); the rest as they are (found on the include paths).
std::vector<std::string> resolvedIncludes(const std::vector<std::string> &Lines,
                                          llvm::StringRef Dir);

/// How many of \p Lines (from leadingIncludes) a configuration's
/// PrecompileIncludes globs ask to precompile: up to the last line whose name
/// (between the quotes or angle brackets) one of \p Globs matches; 0 if none
/// does. A glob that does not parse matches nothing (the configuration reader
/// refuses it).
size_t namedIncludePrefix(const std::vector<std::string> &Lines,
                          const std::vector<std::string> &Globs);

/// For each unit (its leading includes and the key of its options), the longest
/// prefix of its includes that another unit with the same key starts with too,
/// or the first \p Named[I] of them when longer (namedIncludePrefix; \p Named
/// may be empty); empty where neither applies. With \p EvenAlone, a unit no
/// other shares options with keeps its own includes (the fixtures' twin tests).
std::vector<std::vector<std::string>>
sharedIncludePrefixes(const std::vector<std::vector<std::string>> &Includes,
                      const std::vector<std::string> &Keys,
                      bool EvenAlone = false,
                      const std::vector<size_t> &Named = {});

} // namespace frontend
} // namespace tilefit

#endif
