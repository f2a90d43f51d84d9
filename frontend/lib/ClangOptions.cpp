//===- ClangOptions.cpp - Clang's driver options, from its own table ------===//
#include "ClangOptions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <iterator>
#include <mutex>

namespace tilefit {
namespace frontend {
namespace {

// The option kinds of llvm::opt::Option that take values after the flag.
enum class Kind {
  Other,
  Separate,
  JoinedOrSeparate,
  JoinedAndSeparate,
  MultiArg
};

struct OptionRow {
  llvm::ArrayRef<llvm::StringLiteral>
      Prefixes;                 ///< `-`, `--`: each spelling of the name.
  llvm::StringRef PrefixedName; ///< With its first prefix: `-isystem`.
  Kind K;
  unsigned Values; ///< MultiArg: how many.
};

// The table's prefixes: arrays of spellings ending with an empty one (LLVM's
// own definition).
#define PREFIX(NAME, VALUE)                                                    \
  constexpr llvm::StringLiteral NAME##_init[] = VALUE;                         \
  constexpr llvm::ArrayRef<llvm::StringLiteral> NAME(                          \
      NAME##_init, std::size(NAME##_init) - 1);
#include "clang/Driver/Options.inc"
#undef PREFIX

Kind kindOf(llvm::StringRef K) {
  return K == "Separate"            ? Kind::Separate
         : K == "JoinedOrSeparate"  ? Kind::JoinedOrSeparate
         : K == "JoinedAndSeparate" ? Kind::JoinedAndSeparate
         : K == "MultiArg"          ? Kind::MultiArg
                                    : Kind::Other;
}

const OptionRow Rows[] = {
#define OPTION(PREFIX, PREFIXED_NAME, ID, KIND, GROUP, ALIAS, ALIASARGS,       \
               FLAGS, VISIBILITY, PARAM, ...)                                  \
  {PREFIX, PREFIXED_NAME, kindOf(#KIND), static_cast<unsigned>(PARAM)},
#include "clang/Driver/Options.inc"
#undef OPTION
};

/// The options with values, by every spelling of their name (`-target`,
/// `--target`).
struct Index {
  llvm::StringMap<const OptionRow *> Exact;
  std::vector<std::pair<std::string, const OptionRow *>> JoinedAndSeparate;

  Index() {
    for (const OptionRow &R : Rows) {
      if (R.K == Kind::Other || R.Prefixes.empty())
        continue;
      llvm::StringRef Name =
          R.PrefixedName.drop_front(R.Prefixes.front().size());
      for (llvm::StringLiteral P : R.Prefixes) {
        std::string Spelling = P.str() + Name.str();
        if (R.K == Kind::JoinedAndSeparate)
          JoinedAndSeparate.push_back({Spelling, &R});
        else
          Exact.try_emplace(Spelling, &R);
      }
    }
  }
};

} // namespace

unsigned clangValuesAfter(llvm::StringRef Arg) {
  static const Index I;
  if (auto It = I.Exact.find(Arg); It != I.Exact.end())
    return It->second->K == Kind::MultiArg ? It->second->Values : 1;
  for (const auto &[Spelling, Row] : I.JoinedAndSeparate)
    if (Arg.starts_with(Spelling))
      return 1;
  return 0;
}

} // namespace frontend
} // namespace tilefit
