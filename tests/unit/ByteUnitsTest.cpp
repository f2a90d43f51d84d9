//===- ByteUnitsTest.cpp --------------------------------------------------===//
#include "tilefit/model/ByteUnits.h"

#include <gtest/gtest.h>

#include <limits>

namespace tilefit {
namespace {

TEST(UnitsTest, HumanBytes) {
  EXPECT_EQ(humanBytes(0), "0 B");
  EXPECT_EQ(humanBytes(1023), "1023 B");
  EXPECT_EQ(humanBytes(1024), "1 KiB");
  EXPECT_EQ(humanBytes(49152), "48 KiB");
  EXPECT_EQ(humanBytes(13152), "12.8 KiB");
  EXPECT_EQ(humanBytes(232448), "227 KiB");
  EXPECT_EQ(humanBytes(uint64_t(3) << 20), "3 MiB");
  EXPECT_EQ(humanBytes(std::numeric_limits<uint64_t>::max()), "16.0 EiB");
}

// Where a table compares with ptxas, no byte is rounded away: ptxas's 32784
// for runSgemmDoubleBuffering2, 4224 for transposeNoBankConflicts.
TEST(UnitsTest, ExactBytes) {
  EXPECT_EQ(exactBytes(32784), "32784 B");
  EXPECT_EQ(exactBytes(4224), "4224 B");
  EXPECT_EQ(exactBytes(812), "812 B");
  EXPECT_EQ(exactBytes(49152), "48 KiB");
  EXPECT_EQ(exactBytes(232448), "227 KiB");
  EXPECT_EQ(exactBytes((uint64_t(1) << 20) - 1), "1048575 B");
  EXPECT_EQ(exactBytes((uint64_t(3) << 20) + 5), "3.0 MiB");
  for (uint64_t B :
       {uint64_t(1000), uint64_t(4224), uint64_t(200000), uint64_t(1048575)})
    EXPECT_LE(exactBytes(B).size(), humanBytes(B).size()) << B;
}

TEST(UnitsTest, CheckedArithmetic) {
  const uint64_t Max = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(checkedMul(1ull << 31, 1ull << 31), 1ull << 62);
  EXPECT_FALSE(checkedMul(1ull << 32, 1ull << 32));
  EXPECT_EQ(checkedAdd(Max - 1, 1), Max);
  EXPECT_FALSE(checkedAdd(Max, 1));
  EXPECT_EQ(alignUp(13, 8), 16u);
  EXPECT_EQ(alignUp(16, 8), 16u);
  EXPECT_EQ(alignUp(5, 1), 5u);
  EXPECT_EQ(alignUp(5, 0), 5u);
  EXPECT_FALSE(alignUp(Max - 2, 16));
}

} // namespace
} // namespace tilefit
