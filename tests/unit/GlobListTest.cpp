//===- GlobListTest.cpp - clang-tidy's check lists ------------------------===//
//
// globMatch's `*` and `?`, and GlobList's -checks semantics: comma-separated
// globs, `-` to negate, the last glob that matches a name decides, items
// trimmed of blanks.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Checks.h"
#include "tilefit/model/GlobList.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

TEST(GlobListTest, GlobWithoutMetacharactersMatchesOnlyItself) {
  EXPECT_TRUE(globMatch("tilefit-budget", "tilefit-budget"));
  EXPECT_FALSE(globMatch("tilefit-budget", "tilefit-budgets"));
  EXPECT_FALSE(globMatch("tilefit-budgets", "tilefit-budget"));
  EXPECT_FALSE(globMatch("tilefit-budget", "xtilefit-budget"));
  EXPECT_FALSE(globMatch("tilefit-budget", ""));
  EXPECT_TRUE(globMatch("", ""));
  EXPECT_FALSE(globMatch("", "tilefit-budget"));
  // Case matters, as in clang-tidy.
  EXPECT_FALSE(globMatch("Tilefit-Budget", "tilefit-budget"));
  // Nothing but `*` and `?` is special: no character classes, no regular
  // expressions.
  EXPECT_TRUE(globMatch("a.b[c]", "a.b[c]"));
  EXPECT_FALSE(globMatch("a.b", "axb"));
  EXPECT_FALSE(globMatch("[ab]", "a"));
}

TEST(GlobListTest, StarMatchesAnyRunOfCharacters) {
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_TRUE(globMatch("*", "clang-diagnostic-error"));
  EXPECT_TRUE(globMatch("tilefit-*", "tilefit-budget"));
  EXPECT_TRUE(globMatch("tilefit-*", "tilefit-"));
  EXPECT_FALSE(globMatch("tilefit-*", "tilefit"));
  EXPECT_FALSE(globMatch("tilefit-*", "clang-diagnostic-error"));
  EXPECT_TRUE(globMatch("*-limit", "tilefit-static-limit"));
  EXPECT_FALSE(globMatch("*-limit", "tilefit-static-limits"));
  EXPECT_TRUE(globMatch("*static*", "tilefit-static-limit"));
  EXPECT_TRUE(globMatch("tilefit-**", "tilefit-budget"));
  EXPECT_TRUE(globMatch("tilefit-budget**", "tilefit-budget"));
  // Backtracking: the first `-` after `*` is not the one that has to match.
  EXPECT_TRUE(globMatch("*-*-limit", "tilefit-static-limit"));
  EXPECT_TRUE(globMatch("a*b*c", "axxbyybzzc"));
  EXPECT_TRUE(globMatch("a*bc", "abcbc"));
  EXPECT_FALSE(globMatch("a*b*c", "axxbyyb"));
  EXPECT_FALSE(globMatch("a*bc", "abcb"));
}

TEST(GlobListTest, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(globMatch("sm_?0", "sm_80"));
  EXPECT_TRUE(globMatch("sm_?0", "sm_90"));
  EXPECT_FALSE(globMatch("sm_?0", "sm_0"));
  EXPECT_FALSE(globMatch("sm_?0", "sm_100"));
  EXPECT_TRUE(globMatch("sm_??0", "sm_100"));
  EXPECT_TRUE(globMatch("?", "x"));
  EXPECT_FALSE(globMatch("?", ""));
  EXPECT_FALSE(globMatch("?", "xy"));
  EXPECT_TRUE(globMatch("?*", "x"));
  EXPECT_FALSE(globMatch("?*", ""));
  EXPECT_TRUE(globMatch("*?", "xy"));
}

TEST(GlobListTest, EmptyListContainsNothing) {
  EXPECT_TRUE(GlobList().empty());
  EXPECT_FALSE(GlobList().contains("tilefit-budget"));
  EXPECT_FALSE(GlobList().contains(""));
  EXPECT_TRUE(GlobList("").empty());
  EXPECT_FALSE(GlobList("").contains("tilefit-budget"));
  // Empty items and blank items are no globs.
  EXPECT_TRUE(GlobList(",, ,\t,\n").empty());
  EXPECT_FALSE(GlobList(",, ,").contains(""));
  EXPECT_FALSE(GlobList("tilefit-budget").empty());
}

TEST(GlobListTest, PositiveGlobsAddNegativeGlobsRemove) {
  GlobList L("tilefit-*,-tilefit-budget");
  EXPECT_TRUE(L.contains("tilefit-static-limit"));
  EXPECT_TRUE(L.contains("tilefit-capacity"));
  EXPECT_FALSE(L.contains("tilefit-budget"));
  EXPECT_FALSE(L.contains("clang-diagnostic-error"));

  EXPECT_FALSE(GlobList("-*").contains("tilefit-budget"));
  EXPECT_FALSE(GlobList("*,-*").contains("tilefit-budget"));
  GlobList Only("-*,tilefit-budget");
  EXPECT_TRUE(Only.contains("tilefit-budget"));
  EXPECT_FALSE(Only.contains("tilefit-capacity"));
  // A list of negative globs alone contains nothing.
  EXPECT_FALSE(GlobList("-tilefit-budget").contains("tilefit-capacity"));
}

TEST(GlobListTest, LastMatchingGlobWins) {
  // The same two globs in the other order: the later, broader one decides.
  EXPECT_TRUE(GlobList("-tilefit-budget,tilefit-*").contains("tilefit-budget"));
  EXPECT_FALSE(
      GlobList("tilefit-budget,-tilefit-*").contains("tilefit-budget"));
  // Globs after the last match do not matter when they do not match.
  GlobList L("*,-tilefit-*,tilefit-budget,-clang-*");
  EXPECT_TRUE(L.contains("tilefit-budget"));
  EXPECT_FALSE(L.contains("tilefit-capacity"));
  EXPECT_FALSE(L.contains("clang-diagnostic-error"));
  EXPECT_TRUE(L.contains("other-check"));
  // Re-enabling and disabling the same name repeatedly: the last word counts.
  EXPECT_FALSE(GlobList("a,-a,a,-a").contains("a"));
  EXPECT_TRUE(GlobList("-a,a,-a,a").contains("a"));
}

TEST(GlobListTest, ItemsAreTrimmedOfBlanks) {
  GlobList L(" tilefit-* ,\t-tilefit-budget\n, \n tilefit-optin ");
  EXPECT_TRUE(L.contains("tilefit-capacity"));
  EXPECT_FALSE(L.contains("tilefit-budget"));
  EXPECT_TRUE(L.contains("tilefit-optin"));
  // Trimming is of the item's ends only: a blank inside a glob is a character
  // to match.
  EXPECT_FALSE(GlobList("tilefit- budget").contains("tilefit-budget"));
  EXPECT_TRUE(GlobList("tilefit- budget").contains("tilefit- budget"));
}

TEST(GlobListTest, QuestionMarkInAList) {
  GlobList L("*,-sm_?0");
  EXPECT_FALSE(L.contains("sm_80"));
  EXPECT_TRUE(L.contains("sm_100"));
}

// clang-tidy (since 15, https://reviews.llvm.org/D120187) separates globs with
// newlines as well as commas, so that a YAML block scalar can list one check
// per line:
//   Checks: |
//     tilefit-*
//     -tilefit-budget
// GlobList trimmed newlines only at an item's ends: the two lines were one
// glob, "tilefit-*\n-tilefit-budget", which matches no check name, so every
// check was off.
TEST(GlobListTest, NewlinesSeparateGlobsAsInClangTidy) {
  GlobList L("tilefit-*\n-tilefit-budget");
  EXPECT_TRUE(L.contains("tilefit-capacity"));
  EXPECT_FALSE(L.contains("tilefit-budget"));
}

// clang-tidy trims a glob after its `-` as well (`- tilefit-budget` removes
// tilefit-budget); GlobList kept the blank, so the negative glob was "
// tilefit-budget" and removed nothing.
TEST(GlobListTest, BlanksAfterTheMinusAreTrimmedAsInClangTidy) {
  GlobList L("tilefit-*, - tilefit-budget");
  EXPECT_TRUE(L.contains("tilefit-capacity"));
  EXPECT_FALSE(L.contains("tilefit-budget"));
}

// A check list is checked against the checks that exist: a typo names the
// closest check, a list that enables nothing is refused where it must enable.
TEST(GlobListTest, CheckListsNameGlobsThatMatchNoCheck) {
  EXPECT_EQ(checkListProblem("tilefit-*,-tilefit-budget", "--checks", true),
            std::nullopt);
  EXPECT_EQ(checkListProblem("*", "--checks", true), std::nullopt);
  EXPECT_EQ(checkListProblem("", "WarningsAsErrors", false), std::nullopt);
  EXPECT_EQ(checkListProblem("-*", "WarningsAsErrors", false), std::nullopt);
  EXPECT_EQ(checkListProblem("-*,clang-diagnostic-error", "--checks", true),
            std::nullopt);
  EXPECT_EQ(checkListProblem("tilefit-budgte", "--checks", true),
            "--checks: 'tilefit-budgte' matches no check; did you mean "
            "'tilefit-budget'?");
  EXPECT_EQ(checkListProblem("tilefit-*, -Tilefit-Budget", "Checks", true),
            "Checks: 'Tilefit-Budget' matches no check; did you mean "
            "'tilefit-budget'?")
      << "globs are case-sensitive, as in clang-tidy";
  EXPECT_EQ(checkListProblem("-*", "--checks", true),
            "--checks: '-*' enables no check (tilefit --list-checks lists "
            "them)");
  EXPECT_EQ(checkListProblem("", "--checks", true),
            "--checks: '' enables no check (tilefit --list-checks lists "
            "them)");
  EXPECT_EQ(checkListProblem("bugprone-*", "--checks", false),
            "--checks: 'bugprone-*' matches no check (tilefit --list-checks "
            "lists them)");
  EXPECT_EQ(closestCheck("tilefit-static-limt"), "tilefit-static-limit");
  EXPECT_EQ(closestCheck("tilefit-occupncy"), "tilefit-occupancy");
  EXPECT_EQ(closestCheck("readability-magic-numbers"), "");
}

// In a NOLINT list, shared with clang-tidy, only what reads as one of
// tilefit's checks misspelled is a problem.
TEST(GlobListTest, NolintListsFlagOnlyTilefitsMisspelledChecks) {
  EXPECT_EQ(misspelledNolintCheck("tilefit-static-limt"),
            std::optional<std::string>("tilefit-static-limit"));
  EXPECT_EQ(misspelledNolintCheck("tilefit-nothing-like-it"),
            std::optional<std::string>(""));
  EXPECT_EQ(misspelledNolintCheck("tilefit-budget"), std::nullopt);
  EXPECT_EQ(misspelledNolintCheck("tilefit-*"), std::nullopt);
  EXPECT_EQ(misspelledNolintCheck("readability-magic-numbers"), std::nullopt);
  EXPECT_EQ(misspelledNolintCheck("cppcoreguidelines-pro-type-vararg"),
            std::nullopt);
  EXPECT_EQ(misspelledNolintCheck("bugprone-*"), std::nullopt);
  EXPECT_EQ(misspelledNolintCheck("tilefit-capacty"),
            std::optional<std::string>("tilefit-capacity"));
}

} // namespace
} // namespace tilefit
