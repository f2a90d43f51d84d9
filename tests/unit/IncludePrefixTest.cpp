//===- IncludePrefixTest.cpp - The #include lines units start with --------===//
#include "tilefit/frontend/IncludePrefix.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace frontend {
namespace {

using Lines = std::vector<std::string>;

TEST(IncludePrefixTest, LeadingIncludesStopAtTheFirstOtherLine) {
  EXPECT_EQ(leadingIncludes("// A header comment\n"
                            "/* a block\n   comment */\n"
                            "#pragma once\n"
                            "#include <cub/cub.cuh>  // CUB\n"
                            "\n"
                            "  #  include \"common.cuh\"\r\n"
                            "#include <cooperative_groups.h>\n"
                            "#define TILE 32\n"
                            "#include <later.h>\n"),
            (Lines{"#include <cub/cub.cuh>", "#include \"common.cuh\"",
                   "#include <cooperative_groups.h>"}));
  // What the scan does not understand ends the prefix.
  EXPECT_EQ(leadingIncludes(
                "#include <a.h>\n#include MACRO_HEADER\n#include <b.h>\n"),
            (Lines{"#include <a.h>"}));
  EXPECT_EQ(leadingIncludes("#include <a.h>\n#if X\n#include <b.h>\n#endif\n"),
            (Lines{"#include <a.h>"}));
  EXPECT_EQ(leadingIncludes("#include <a.h> \\\n  junk\n"), Lines{});
  EXPECT_EQ(leadingIncludes("#include <a.h> extra\n"), Lines{});
  EXPECT_EQ(leadingIncludes("__global__ void k() {}\n#include <a.h>\n"),
            Lines{});
}

TEST(IncludePrefixTest, TheLongestPrefixAnotherUnitWithTheSameOptionsShares) {
  const std::vector<Lines> Includes = {
      {"#include <a>", "#include <b>", "#include <c>"},
      {"#include <a>", "#include <b>", "#include <d>"},
      {"#include <a>", "#include <x>"},
      {"#include <a>", "#include <b>", "#include <c>"}, // other options
      {"#include <q>"}};
  const std::vector<std::string> Keys = {"sm_90", "sm_90", "sm_90", "sm_80",
                                         "sm_90"};
  const auto Shared = sharedIncludePrefixes(Includes, Keys);
  EXPECT_EQ(Shared[0], (Lines{"#include <a>", "#include <b>"}));
  EXPECT_EQ(Shared[1], (Lines{"#include <a>", "#include <b>"}));
  EXPECT_EQ(Shared[2], (Lines{"#include <a>"}));
  EXPECT_EQ(Shared[3], Lines{}) << "alone with its options";
  EXPECT_EQ(Shared[4], Lines{}) << "shares nothing";
  EXPECT_EQ(sharedIncludePrefixes(Includes, Keys, /*EvenAlone=*/true)[3],
            Includes[3]);
}

TEST(IncludePrefixTest, AConfigurationNamesHeadersToPrecompileEvenAlone) {
  const Lines Reduce = {"#include <cub/block/block_reduce.cuh>",
                        "#include \"kernels.h\"", "#include <vector>"};
  EXPECT_EQ(namedIncludePrefix(Reduce, {"cub/*"}), 1u);
  EXPECT_EQ(namedIncludePrefix(Reduce, {"cub/*", "kernels.h"}), 2u)
      << "up to the last one named";
  EXPECT_EQ(namedIncludePrefix(Reduce, {"*.h"}), 2u);
  EXPECT_EQ(namedIncludePrefix(Reduce, {"cub"}), 0u) << "whole names only";
  EXPECT_EQ(namedIncludePrefix(Reduce, {}), 0u);
  EXPECT_EQ(namedIncludePrefix(Reduce, {"[", "vector"}), 3u)
      << "a glob that does not parse matches nothing";

  const std::vector<Lines> Includes = {
      Reduce,
      {"#include \"kernels.h\"", "#include <x>"},
      {"#include \"kernels.h\"", "#include <y>"}};
  const std::vector<std::string> Keys = {"sm_90", "sm_90", "sm_90"};
  const auto Shared = sharedIncludePrefixes(Includes, Keys, false, {1, 0, 5});
  EXPECT_EQ(Shared[0], Lines{Reduce[0]}) << "named, though no other has it";
  EXPECT_EQ(Shared[1], Lines{"#include \"kernels.h\""}) << "shared";
  EXPECT_EQ(Shared[2], Includes[2]) << "named beyond its end: all of them";
  EXPECT_EQ(sharedIncludePrefixes(Includes, Keys)[0], Lines{});
}

TEST(IncludePrefixTest, QuotedHeadersBesideTheUnitAreWrittenWithTheirFolder) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tilefit-prefix", Dir));
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out((Dir + "/common.cuh").str(), EC);
    Out << "#pragma once\n";
  }
  EXPECT_EQ(
      resolvedIncludes({"#include \"common.cuh\"", "#include \"elsewhere.h\"",
                        "#include <cub/cub.cuh>"},
                       Dir),
      (Lines{"#include \"" + std::string(Dir) + "/common.cuh\"",
             "#include \"elsewhere.h\"", "#include <cub/cub.cuh>"}));
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
} // namespace frontend
} // namespace tilefit
