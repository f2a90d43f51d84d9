//===- HugePagesTest.cpp - The GLIBC_TUNABLES tilefit runs with -----------===//
#include "HugePages.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace tool {
namespace {

const char *OnRequest = "always [madvise] never\n";

TEST(HugePages, AddedWhereTheKernelGivesThemOnRequest) {
  EXPECT_EQ(hugePageTunables(nullptr, OnRequest),
            std::optional<std::string>("glibc.malloc.hugetlb=1"));
  EXPECT_EQ(hugePageTunables("", OnRequest),
            std::optional<std::string>("glibc.malloc.hugetlb=1"));
  EXPECT_EQ(hugePageTunables("glibc.malloc.arena_max=2", OnRequest),
            std::optional<std::string>(
                "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
}

TEST(HugePages, NothingWhereTheKernelDecidesOrTheUserDid) {
  EXPECT_EQ(hugePageTunables(nullptr, "[always] madvise never\n"),
            std::nullopt);
  EXPECT_EQ(hugePageTunables(nullptr, "always madvise [never]\n"),
            std::nullopt);
  EXPECT_EQ(hugePageTunables(nullptr, ""), std::nullopt);
  EXPECT_EQ(hugePageTunables("glibc.malloc.hugetlb=0", OnRequest),
            std::nullopt);
  EXPECT_EQ(hugePageTunables("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2",
                             OnRequest),
            std::nullopt);
}

} // namespace
} // namespace tool
} // namespace tilefit
