//===- CacheSpaceTest.cpp - The cache folder's space, counted -------------===//
#include "CacheSpace.h"

#include "tilefit/frontend/ResultCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>

namespace tilefit {
namespace frontend {
namespace {

using namespace llvm;

class CacheSpaceTest : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> D;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("tilefit-cachespace", D));
    Root = std::string(D);
  }
  void TearDown() override { sys::fs::remove_directories(Root); }

  std::string folder(StringRef Name) {
    SmallString<128> P(Root);
    sys::path::append(P, Name);
    sys::fs::create_directories(P);
    return std::string(P);
  }
  /// Writes \p Bytes bytes to \p Folder/\p Name, used \p AgeS seconds ago.
  std::string file(const std::string &Folder, StringRef Name, size_t Bytes,
                   int AgeS = 0) {
    SmallString<128> P(Folder);
    sys::path::append(P, Name);
    std::error_code EC;
    {
      raw_fd_ostream Out(P, EC);
      Out << std::string(Bytes, 'x');
    }
    int FD;
    if (!sys::fs::openFileForWrite(P, FD, sys::fs::CD_OpenExisting,
                                   sys::fs::OF_Append)) {
      auto T = std::chrono::system_clock::now() - std::chrono::seconds(AgeS);
      sys::fs::setLastAccessAndModificationTime(FD, T, T);
      sys::fs::closeFile(FD);
    }
    return std::string(P);
  }

  std::string Root;
};

TEST_F(CacheSpaceTest, CountersFollowWritesWithoutListingTheFolder) {
  std::string A = folder("ab");
  file(A, "one.json", 100);
  cachespace::account(A, 100, 1); // A new counter: the folder is counted.
  EXPECT_EQ(cachespace::total(Root), 100u);
  file(A, "two.json", 50);
  cachespace::account(A, 50, 1);
  EXPECT_EQ(cachespace::total(Root), 150u);
  // A file nobody counted is not seen: the total comes from the counters.
  file(A, "behind.json", 1000);
  EXPECT_EQ(cachespace::total(Root), 150u);
  cachespace::recount(A);
  EXPECT_EQ(cachespace::total(Root), 1150u);
  cachespace::account(A, -1000, -1);
  EXPECT_EQ(cachespace::total(Root), 150u);
}

TEST_F(CacheSpaceTest, AFolderWithoutCounterIsCountedOnce) {
  // What an older tilefit left: entries and no counter.
  std::string A = folder("cd"), B = folder("inputs");
  file(A, "x.json", 300);
  file(B, "y.json", 200);
  EXPECT_EQ(cachespace::total(Root), 500u);
  EXPECT_TRUE(sys::fs::exists(A + "/" + cachespace::CounterName));
}

TEST_F(CacheSpaceTest, CleaningRemovesTheLeastRecentlyUsedFirst) {
  std::string A = folder("00"), B = folder("01");
  std::string OldA = file(A, "old.json", 400, 3000);
  std::string NewA = file(A, "new.json", 400, 10);
  std::string OldB = file(B, "older.json", 400, 4000);
  std::string NewB = file(B, "newer.json", 400, 20);
  std::string Stale = file(B, "left.json.123.tmp", 10, 7200);
  EXPECT_EQ(cachespace::total(Root), 1600u);
  // Under the bound: nothing goes.
  EXPECT_EQ(cachespace::cleanIfOver(Root, 1600), 0u);
  EXPECT_TRUE(sys::fs::exists(OldB));
  // Over it: down to nine tenths of 1200 (1080), the oldest first.
  EXPECT_EQ(cachespace::cleanIfOver(Root, 1200), 800u);
  EXPECT_FALSE(sys::fs::exists(OldA));
  EXPECT_FALSE(sys::fs::exists(OldB));
  EXPECT_TRUE(sys::fs::exists(NewA));
  EXPECT_TRUE(sys::fs::exists(NewB));
  EXPECT_FALSE(sys::fs::exists(Stale)) << "a stale temporary file stays";
  // The counters are exact again.
  EXPECT_EQ(cachespace::total(Root), 800u);
}

TEST_F(CacheSpaceTest, APrecompiledHeaderGoesWithItsRecords) {
  std::string P = folder("pch");
  std::string Pch = file(P, "k.pch", 1000, 100);
  std::string Inputs = file(P, "k.pch.inputs", 100, 100);
  std::string Scope = file(P, "k.pch.scope", 100, 100);
  std::string Source = file(P, "empty.cu", 0, 100);
  EXPECT_EQ(cachespace::total(Root), 1200u);
  EXPECT_EQ(cachespace::cleanIfOver(Root, 500), 1200u);
  EXPECT_FALSE(sys::fs::exists(Pch));
  EXPECT_FALSE(sys::fs::exists(Inputs));
  EXPECT_FALSE(sys::fs::exists(Scope));
  EXPECT_TRUE(sys::fs::exists(Source));
  EXPECT_EQ(cachespace::total(Root), 0u);
}

TEST_F(CacheSpaceTest, ARunThatOnlyReadsNeverCleans) {
  std::string A = folder("ef");
  std::string Old = file(A, "old.json", 5000, 3600);
  {
    ResultCache Cache(Root, 1000);
    EXPECT_FALSE(Cache.lookup(std::string(40, 'e')).has_value());
    Cache.trim();
    EXPECT_TRUE(sys::fs::exists(Old))
        << "a run that stored nothing lists and removes nothing";
  }
  {
    ResultCache Cache(Root, 1000);
    TranslationUnitFacts Facts;
    Facts.File = "u.cu";
    Cache.store(std::string(40, 'e'), Facts, {});
    Cache.trim();
    EXPECT_FALSE(sys::fs::exists(Old)) << "a run that stored cleans";
    EXPECT_TRUE(Cache.lookup(std::string(40, 'e')).has_value());
  }
}

} // namespace
} // namespace frontend
} // namespace tilefit
