//===- HeaderPch.h - The CUDA runtime headers, precompiled ------*- C++ -*-===//
//
// Most of a small CUDA unit's parse is the CUDA runtime headers Clang includes
// implicitly (`-include __clang_cuda_runtime_wrapper.h`), the same for every
// unit parsed with the same architecture and options. They are precompiled once
// per such set (keyed by tilefit's version and the parse's options without the
// unit's own file) into a folder, and each parse loads the precompiled header
// in their place. Building is atomic (a temporary file, then a rename) and done
// once per key per process (two parses starting at once may both build);
// concurrent processes may both build, and one wins. The leading #include lines
// units share (IncludePrefix.h) are precompiled the same way, after the runtime
// headers.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_HEADERPCH_H
#define TILEFIT_FRONTEND_HEADERPCH_H

#include "tilefit/frontend/HeaderRecord.h"
#include "tilefit/model/Facts.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clang {
class CompilerInvocation;
}

namespace tilefit {
namespace frontend {

/// What a prefix's build saw of the directives a parse watches in the code it
/// preprocesses itself (NvccOnlyCode.h): the warnings about blocks only nvcc
/// compiles, and whether a block under a directive on __CUDA_ARCH__ held host
/// launches.
struct PrefixDirectives {
  std::vector<Diagnostic> NvccOnly;
  bool SkippedHostCalls = false;
};

class HeaderPchStore {
public:
  explicit HeaderPchStore(std::string Dir) : Dir(std::move(Dir)) {}

  /// Makes \p Invocation load the precompiled CUDA runtime headers instead of
  /// including them, building the precompiled header first if needed. Returns
  /// the header's path, or "" (and leaves \p Invocation as it was) when the
  /// invocation has no such implicit include or the header cannot be built.
  std::string use(clang::CompilerInvocation &Invocation);

  /// The same with the unit's leading #include lines (\p Includes, as
  /// IncludePrefix.h's resolvedIncludes writes them) precompiled after the
  /// runtime headers, in one header for every unit with these options that
  /// starts so. The unit's own #include lines then find their headers already
  /// included (their include guards skip them). Refused, and the runtime
  /// headers alone used, when a header of the prefix has no include guard nor
  /// `#pragma once`, or when the prefix does not build. What the directives of
  /// its project headers on __CUDA_ARCH__ or on a macro only nvcc defines skip,
  /// which a parse watches in its own code, is watched while the prefix is
  /// built and recorded beside it (directives()).
  std::string use(clang::CompilerInvocation &Invocation,
                  const std::vector<std::string> &Includes);

  /// Removes the precompiled header at \p Path (a parse with it failed: one of
  /// its inputs changed, or it is damaged), so that the next run builds it
  /// again; this run no longer uses it.
  void discard(const std::string &Path);

  /// The files the precompiled header at \p Path was built from (the runtime
  /// wrapper, the toolkit's and the C++ library's headers, tilefit's
  /// compatibility header), as recorded beside it when it was built: a parse
  /// that loads it has read them, and a result stored for that parse is valid
  /// only while they are unchanged. Empty if none was recorded.
  std::vector<std::string> inputs(const std::string &Path);

  /// For a prefix (a header that holds a unit's leading #include lines): which
  /// of its top-level declarations a parse that loads it visits, as recorded
  /// beside it when it was built (TraversalScope.h). Empty if none was
  /// recorded.
  std::string scope(const std::string &Path);
  /// For a prefix: what its build saw of the directives a parse watches in its
  /// own code (NvccOnlyCode.h), to be taken as the parse's own.
  PrefixDirectives directives(const std::string &Path);
  /// For a prefix: what the first parse that loaded it recorded of its
  /// declarations (HeaderRecord.h) for the next ones; empty if none, or if the
  /// header was built again since.
  std::string record(const std::string &Path, HeaderRecord Kind);
  /// Keeps \p Record beside the prefix at \p Path (record()).
  void storeRecord(const std::string &Path, HeaderRecord Kind,
                   const std::string &Record);
  const std::string &dir() const { return Dir; }

private:
  /// Builds the precompiled header at \p Path: the invocation's implicit
  /// includes, then \p Includes (none: the runtime headers alone).
  std::string build(const clang::CompilerInvocation &Invocation,
                    const std::string &Path,
                    const std::vector<std::string> &Includes);
  /// The header for \p Key at \p Path, built if needed; "" when it cannot be.
  std::string obtain(const clang::CompilerInvocation &Invocation,
                     const std::string &Key, const std::string &Path,
                     const std::vector<std::string> &Includes);

  std::string Dir;
  std::mutex Lock;
  /// Per key: the precompiled header's path, "-" when it could not be built (""
  /// not yet).
  std::map<std::string, std::string> Keys;
  /// Per precompiled header: its recorded inputs, once read.
  std::map<std::string, std::vector<std::string>> Inputs;
  /// Per prefix: its recorded scope, once read.
  std::map<std::string, std::string> Scopes;
  /// Per prefix: its recorded directives, once read.
  std::map<std::string, PrefixDirectives> Directives;
};

/// The implicit include HeaderPchStore precompiles.
extern const char *const CudaRuntimeWrapper;

} // namespace frontend
} // namespace tilefit

#endif
