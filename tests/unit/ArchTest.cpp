//===- ArchTest.cpp -------------------------------------------------------===//
#include "tilefit/model/Arch.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

TEST(ArchTest, ParsesRealArchitectures) {
  auto A = parseArch("sm_90");
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Number, 90u);
  EXPECT_EQ(A->Suffix, 0);
  EXPECT_EQ(A->name(), "sm_90");
  EXPECT_EQ(A->cudaArchMacro(), 900u);
  EXPECT_EQ(A->computeCapability(), "9.0");
}

TEST(ArchTest, ParsesSuffixesAndThreeDigits) {
  auto A = parseArch("sm_100a");
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Number, 100u);
  EXPECT_EQ(A->Suffix, 'a');
  EXPECT_EQ(A->baseName(), "sm_100");
  EXPECT_EQ(A->cudaArchMacro(), 1000u);
  EXPECT_EQ(A->computeCapability(), "10.0");
  EXPECT_EQ(parseArch("sm_121f")->name(), "sm_121f");
}

TEST(ArchTest, VirtualArchitecturesNameTheirRealOne) {
  EXPECT_EQ(parseArch("compute_80")->name(), "sm_80");
  EXPECT_EQ(parseArch("86")->name(), "sm_86");
}

TEST(ArchTest, RejectsGarbage) {
  for (const char *Bad : {"", "sm_", "sm_9", "sm_1000", "sm_90b", "sm_90aa",
                          "gfx90a", "sm-90", "sm_99999999999999999999"})
    EXPECT_FALSE(parseArch(Bad)) << Bad;
}

TEST(ArchTest, NvccArchitecturesAreOrderedAndParse) {
  const auto &All = nvccRealArchs();
  ASSERT_FALSE(All.empty());
  EXPECT_EQ(All.front(), DefaultArch);
  unsigned Prev = 0;
  for (const std::string &A : All) {
    auto P = parseArch(A);
    ASSERT_TRUE(P) << A;
    EXPECT_GT(P->Number, Prev);
    Prev = P->Number;
  }
}

} // namespace
} // namespace tilefit
