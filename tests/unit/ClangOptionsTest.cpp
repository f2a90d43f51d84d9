//===- ClangOptionsTest.cpp -----------------------------------------------===//
//
// Clang's flags and their values, from its table.
//
// Built into tilefit_project_tests, which links tilefit_project and no Clang
// library: the command translation links without Clang.
//
//===----------------------------------------------------------------------===//
#include "../../frontend/lib/ClangOptions.h"
#include "tilefit/frontend/CommandTranslation.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace frontend {
namespace {

TEST(ClangOptionsTest, ValuesFollowAsClangsTableSays) {
  // Separate and joined-or-separate spellings take the next argument.
  for (const char *Flag : {"-I",
                           "-isystem",
                           "-iquote",
                           "-idirafter",
                           "-include",
                           "-imacros",
                           "-D",
                           "-U",
                           "-x",
                           "-o",
                           "-MF",
                           "-Xclang",
                           "-Xarch_device",
                           "-Xcuda-ptxas",
                           "-target",
                           "-isysroot",
                           "--sysroot",
                           "-mllvm",
                           "-Xopenmp-target",
                           "-include-pch",
                           "-working-directory"})
    EXPECT_EQ(clangValuesAfter(Flag), 1u) << Flag;
  // A joined value, a flag, or an argument Clang does not know: none.
  for (const char *Flag :
       {"-Iinc", "-DX=1", "--target=nvptx64", "-std=c++17", "-O2", "-c",
        "-fgpu-rdc", "--cuda-gpu-arch=sm_90", "-not-a-clang-flag", "k.cu"})
    EXPECT_EQ(clangValuesAfter(Flag), 0u) << Flag;
  // Joined and separate: `-Xarch_<arch> <flag>`.
  EXPECT_EQ(clangValuesAfter("-Xarch_sm_80"), 1u);
  // An option of several values.
  EXPECT_EQ(clangValuesAfter("-sectalign"), 3u);
}

DeviceFlags translate(std::vector<std::string> Argv) {
  CompileCommand C;
  C.Directory = "/build";
  C.File = "/src/k.cu";
  C.Arguments = std::move(Argv);
  return translateCommand(C);
}

TEST(ClangOptionsTest, TheTranslationKeepsEveryValueWithItsFlag) {
  // Values that do not start with a dash were taken for inputs and lost before.
  DeviceFlags F =
      translate({"clang++", "-Xarch_sm_80", "-DONLY_SM80", "-iprefix", "pre/",
                 "-iwithprefix", "inc", "-c", "/src/k.cu"});
  EXPECT_EQ(llvm::join(F.ClangArgs, " "),
            "-Xarch_sm_80 -DONLY_SM80 -iprefix pre/ -iwithprefix inc");
  EXPECT_TRUE(F.Refused.empty());
}

TEST(ClangOptionsTest, AValueThatWouldLoadCodeRefusesItsFlag) {
  DeviceFlags F = translate({"clang++", "-Xopenmp-target", "-fplugin=/evil.so",
                             "-Xarch_sm_90", "-Xclang", "-Xarch_sm_90", "-load",
                             "-I", "inc", "/src/k.cu"});
  EXPECT_EQ(F.Refused, (std::vector<std::string>{
                           "-Xopenmp-target -fplugin=/evil.so",
                           "-Xarch_sm_90 -Xclang", "-Xarch_sm_90 -load"}));
  EXPECT_EQ(llvm::join(F.ClangArgs, " "), "-I inc");
}

} // namespace
} // namespace frontend
} // namespace tilefit
