//===- SuppressionsTest.cpp - NOLINT comments, as clang-tidy reads them ---===//
//
// NolintMap on source text (NOLINT, NOLINTNEXTLINE, NOLINTBEGIN/END with and
// without check lists, unmatched BEGIN/END), and applySuppressions on a
// hand-built report whose files are given by a function, not read from disk.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Suppressions.h"

#include <gtest/gtest.h>

#include <map>

namespace tilefit {
namespace {

NolintMap parse(std::string_view Text,
                std::vector<Diagnostic> *Problems = nullptr) {
  std::vector<Diagnostic> Local;
  NolintMap M = NolintMap::parse(Text, "k.cu", Problems ? *Problems : Local);
  if (!Problems) {
    EXPECT_TRUE(Local.empty()) << Local.front().Message;
  }
  return M;
}

TEST(SuppressionsTest, NolintSuppressesEveryCheckOnItsOwnLineOnly) {
  NolintMap M = parse("__global__ void a() {}\n"
                      "__global__ void b() {} // NOLINT\n"
                      "__global__ void c() {}\n");
  EXPECT_TRUE(M.suppresses(2, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(2, "tilefit-static-limit"));
  EXPECT_TRUE(M.suppresses(2, "clang-diagnostic-error"));
  EXPECT_FALSE(M.suppresses(1, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(3, "tilefit-budget"));
}

TEST(SuppressionsTest, NolintWithAListSuppressesOnlyTheListedChecks) {
  NolintMap M = parse("a // NOLINT(tilefit-budget)\n"
                      "b // NOLINT(tilefit-budget, tilefit-optin)\n"
                      "c // NOLINT(tilefit-*)\n"
                      "d // NOLINT(*)\n"
                      "e // NOLINT()\n"
                      "f // NOLINT(tilefit-*,-tilefit-budget)\n");
  EXPECT_TRUE(M.suppresses(1, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(1, "tilefit-capacity"));
  // Globs are trimmed: the blank after the comma does not matter.
  EXPECT_TRUE(M.suppresses(2, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(2, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(3, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(3, "tilefit-static-limit"));
  EXPECT_FALSE(M.suppresses(3, "clang-diagnostic-error"));
  // `*` and an empty list both mean every check.
  EXPECT_TRUE(M.suppresses(4, "clang-diagnostic-error"));
  EXPECT_TRUE(M.suppresses(5, "clang-diagnostic-error"));
  // The list is a GlobList: the last matching glob decides.
  EXPECT_TRUE(M.suppresses(6, "tilefit-capacity"));
  EXPECT_FALSE(M.suppresses(6, "tilefit-budget"));
}

TEST(SuppressionsTest, NolintNextLineSuppressesTheFollowingLineOnly) {
  NolintMap M =
      parse("// NOLINTNEXTLINE\n"
            "__global__ void a() {}\n"
            "__global__ void b() {}\n"
            "// NOLINTNEXTLINE(tilefit-static-limit, tilefit-capacity)\n"
            "__global__ void c() {}\n");
  EXPECT_FALSE(M.suppresses(1, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(2, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(3, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(4, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-static-limit"));
  EXPECT_FALSE(M.suppresses(5, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(6, "tilefit-capacity"));
}

TEST(SuppressionsTest, NolintBeginEndSuppressesTheRangeInclusive) {
  NolintMap M = parse("a\n"              // 1
                      "// NOLINTBEGIN\n" // 2
                      "b\n"              // 3
                      "c\n"              // 4
                      "// NOLINTEND\n"   // 5
                      "d\n");            // 6
  EXPECT_FALSE(M.suppresses(1, "tilefit-budget"));
  for (unsigned L = 2; L <= 5; ++L)
    EXPECT_TRUE(M.suppresses(L, "tilefit-budget")) << L;
  EXPECT_FALSE(M.suppresses(6, "tilefit-budget"));
}

TEST(SuppressionsTest, NolintBeginEndWithAListSuppressesOnlyTheListedChecks) {
  NolintMap M = parse("// NOLINTBEGIN(tilefit-budget)\n" // 1
                      "a\n"                              // 2
                      "// NOLINTEND(tilefit-budget)\n"   // 3
                      "// NOLINTBEGIN(tilefit-*)\n"      // 4
                      "b\n"                              // 5
                      "// NOLINTEND(tilefit-*)\n");      // 6
  EXPECT_TRUE(M.suppresses(2, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(5, "clang-diagnostic-error"));
}

TEST(SuppressionsTest, EndsCloseTheInnermostBeginWithTheSameList) {
  // Interleaved ranges: each END closes the BEGIN with its list, not the
  // innermost one.
  std::vector<Diagnostic> Problems;
  NolintMap M = parse("// NOLINTBEGIN(tilefit-budget)\n" // 1
                      "// NOLINTBEGIN(tilefit-optin)\n"  // 2
                      "a\n"                              // 3
                      "// NOLINTEND(tilefit-budget)\n"   // 4
                      "b\n"                              // 5
                      "// NOLINTEND(tilefit-optin)\n"    // 6
                      "c\n",                             // 7
                      &Problems);
  EXPECT_TRUE(Problems.empty());
  EXPECT_TRUE(M.suppresses(3, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(3, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(5, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(7, "tilefit-optin"));
}

TEST(SuppressionsTest, NestedRangesWithTheSameList) {
  std::vector<Diagnostic> Problems;
  NolintMap M = parse("// NOLINTBEGIN\n" // 1
                      "// NOLINTBEGIN\n" // 2
                      "a\n"              // 3
                      "// NOLINTEND\n"   // 4
                      "b\n"              // 5
                      "// NOLINTEND\n"   // 6
                      "c\n",             // 7
                      &Problems);
  EXPECT_TRUE(Problems.empty());
  EXPECT_TRUE(M.suppresses(3, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(5, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(7, "tilefit-budget"));
}

TEST(SuppressionsTest, UnmatchedEndIsAProblemAtItsLineAndColumn) {
  std::vector<Diagnostic> Problems;
  NolintMap M = NolintMap::parse("a\n"
                                 "b // NOLINTEND(tilefit-budget)\n"
                                 "c\n",
                                 "dir/k.cu", Problems);
  ASSERT_EQ(Problems.size(), 1u);
  const Diagnostic &P = Problems[0];
  EXPECT_EQ(P.Check, "tilefit-nolint");
  EXPECT_EQ(P.Level, Severity::Error);
  EXPECT_EQ(P.Loc.File, "dir/k.cu");
  EXPECT_EQ(P.Loc.Line, 2u);
  EXPECT_EQ(P.Loc.Column, 6u);
  EXPECT_NE(P.Message.find("unmatched 'NOLINTEND'"), std::string::npos)
      << P.Message;
  // An unmatched END suppresses nothing.
  EXPECT_FALSE(M.suppresses(1, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-budget"));
}

TEST(SuppressionsTest, UnmatchedBeginIsAProblemAtItsLineAndColumn) {
  std::vector<Diagnostic> Problems;
  NolintMap M = NolintMap::parse("a\n"
                                 "b\n"
                                 "  // NOLINTBEGIN(tilefit-optin)\n"
                                 "c\n",
                                 "dir/k.cu", Problems);
  ASSERT_EQ(Problems.size(), 1u);
  const Diagnostic &P = Problems[0];
  EXPECT_EQ(P.Check, "tilefit-nolint");
  EXPECT_EQ(P.Level, Severity::Error);
  EXPECT_EQ(P.Loc.File, "dir/k.cu");
  EXPECT_EQ(P.Loc.Line, 3u);
  EXPECT_EQ(P.Loc.Column, 6u);
  EXPECT_NE(P.Message.find("unmatched 'NOLINTBEGIN'"), std::string::npos)
      << P.Message;
  // An unclosed range suppresses nothing, not even to the end of the file.
  EXPECT_FALSE(M.suppresses(3, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(4, "tilefit-optin"));
}

TEST(SuppressionsTest, BeginAndEndWithDifferentListsAreBothUnmatched) {
  std::vector<Diagnostic> Problems;
  NolintMap M = parse("// NOLINTBEGIN(tilefit-budget)\n" // 1
                      "a\n"                              // 2
                      "// NOLINTEND(tilefit-optin)\n",   // 3
                      &Problems);
  ASSERT_EQ(Problems.size(), 2u);
  // The END when it is read, the BEGIN at the end of the file.
  EXPECT_EQ(Problems[0].Loc.Line, 3u);
  EXPECT_NE(Problems[0].Message.find("'NOLINTEND'"), std::string::npos);
  EXPECT_EQ(Problems[1].Loc.Line, 1u);
  EXPECT_NE(Problems[1].Message.find("'NOLINTBEGIN'"), std::string::npos);
  EXPECT_FALSE(M.suppresses(2, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-optin"));
}

TEST(SuppressionsTest, NolintInsideALongerWordIsNoMarker) {
  NolintMap M = parse("a // NOLINTFOO\n"
                      "b // NOLINT_x\n"
                      "c // NOLINTNEXTLINEX\n"
                      "d\n"
                      "e // NOLINTBEGINS\n"
                      "f // NOLINTENDS\n");
  for (unsigned L = 1; L <= 6; ++L)
    EXPECT_FALSE(M.suppresses(L, "tilefit-budget")) << L;
}

TEST(SuppressionsTest, SeveralMarkersOnOneLine) {
  // A one-line range and a NOLINTNEXTLINE after other text on the same line.
  NolintMap M = parse(
      "a /* NOLINTBEGIN(tilefit-budget) */ x; /* NOLINTEND(tilefit-budget) */\n"
      "b // NOLINT(tilefit-optin) NOLINTNEXTLINE(tilefit-capacity)\n"
      "c\n");
  EXPECT_TRUE(M.suppresses(1, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-budget"));
  EXPECT_TRUE(M.suppresses(2, "tilefit-optin"));
  EXPECT_FALSE(M.suppresses(2, "tilefit-capacity"));
  EXPECT_TRUE(M.suppresses(3, "tilefit-capacity"));
  EXPECT_FALSE(M.suppresses(3, "tilefit-optin"));
}

TEST(SuppressionsTest, WindowsLineEndings) {
  NolintMap M = parse("a\r\n"
                      "b // NOLINT\r\n"
                      "// NOLINTNEXTLINE(tilefit-budget)\r\n"
                      "c\r\n");
  EXPECT_FALSE(M.suppresses(1, "tilefit-optin"));
  EXPECT_TRUE(M.suppresses(2, "tilefit-optin"));
  EXPECT_TRUE(M.suppresses(4, "tilefit-budget"));
  EXPECT_FALSE(M.suppresses(4, "tilefit-optin"));
}

TEST(SuppressionsTest, TextWithoutMarkersSuppressesNothing) {
  NolintMap M = parse("");
  EXPECT_FALSE(M.suppresses(1, "tilefit-budget"));
  NolintMap N = parse("a\nb\nNOLIN\n");
  for (unsigned L = 0; L <= 4; ++L)
    EXPECT_FALSE(N.suppresses(L, "tilefit-budget")) << L;
}

//===----------------------------------------------------------------------===//
// applySuppressions
//===----------------------------------------------------------------------===//

Diagnostic finding(const std::string &Check, const std::string &File,
                   unsigned Line, const std::string &Message = "finding") {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = Check;
  D.Message = Message;
  D.Loc = {File, Line, 1};
  D.TranslationUnit = File;
  return D;
}

/// Files held in memory; everything else is unreadable. Counts the reads.
struct Files {
  std::map<std::string, std::string> Text;
  std::map<std::string, int> Reads;
  std::function<std::optional<std::string>(const std::string &)> reader() {
    return [this](const std::string &F) -> std::optional<std::string> {
      ++Reads[F];
      auto It = Text.find(F);
      if (It == Text.end())
        return std::nullopt;
      return It->second;
    };
  }
};

std::vector<std::string> messages(const Report &R) {
  std::vector<std::string> Out;
  for (const Diagnostic &D : R.Diagnostics)
    Out.push_back(D.Message);
  return Out;
}

TEST(SuppressionsTest, ApplyDropsFindingsOnNolintLinesAndCountsThem) {
  Files F;
  F.Text["k.cu"] = "__global__ void a() {} // NOLINT(tilefit-budget)\n" // 1
                   "// NOLINTNEXTLINE\n"                                // 2
                   "__global__ void b() {}\n"                           // 3
                   "// NOLINTBEGIN(tilefit-capacity)\n"                 // 4
                   "__global__ void c() {}\n"                           // 5
                   "// NOLINTEND(tilefit-capacity)\n"                   // 6
                   "__global__ void d() {}\n";                          // 7
  Report R;
  R.Diagnostics = {finding("tilefit-budget", "k.cu", 1, "a budget"),
                   finding("tilefit-capacity", "k.cu", 1, "a capacity"),
                   finding("tilefit-optin", "k.cu", 3, "b optin"),
                   finding("tilefit-capacity", "k.cu", 5, "c capacity"),
                   finding("tilefit-budget", "k.cu", 5, "c budget"),
                   finding("tilefit-budget", "k.cu", 7, "d budget")};
  EXPECT_EQ(applySuppressions(R, F.reader()), 3u);
  EXPECT_EQ(messages(R),
            (std::vector<std::string>{"a capacity", "c budget", "d budget"}));
  // The file is read once for all its findings.
  EXPECT_EQ(F.Reads["k.cu"], 1);
}

TEST(SuppressionsTest, ApplySuppressesThroughTheLineOfANote) {
  Files F;
  F.Text["k.cu"] = "__global__ void k() {}\n"
                   "void host() {\n"
                   "  k<<<1, 256, 65536>>>(); // NOLINT(tilefit-optin)\n"
                   "}\n";
  F.Text["tile.cuh"] =
      "\n__shared__ float t[20000]; // NOLINT(tilefit-static-limit)\n";
  Report R;
  Diagnostic OptIn = finding("tilefit-optin", "k.cu", 1, "optin");
  OptIn.Notes.push_back({"launched here", {"k.cu", 3, 3}});
  Diagnostic Static = finding("tilefit-static-limit", "k.cu", 1, "static");
  Static.Notes.push_back({"allocated here", {"k.cu", 2, 1}});
  Static.Notes.push_back({"allocated here", {"tile.cuh", 2, 19}});
  // The note's NOLINT names another check: it stays.
  Diagnostic Budget = finding("tilefit-budget", "k.cu", 1, "budget");
  Budget.Notes.push_back({"launched here", {"k.cu", 3, 3}});
  // A note without a position, and one in an unreadable file, suppress nothing.
  Diagnostic Capacity = finding("tilefit-capacity", "k.cu", 1, "capacity");
  Capacity.Notes.push_back({"no position", {"", 0, 0}});
  Capacity.Notes.push_back({"unreadable", {"gone.cuh", 2, 1}});
  R.Diagnostics = {OptIn, Static, Budget, Capacity};
  EXPECT_EQ(applySuppressions(R, F.reader()), 2u);
  EXPECT_EQ(messages(R), (std::vector<std::string>{"budget", "capacity"}));
  EXPECT_EQ(F.Reads["gone.cuh"], 1);
  EXPECT_EQ(F.Reads.count(""), 0u);
}

TEST(SuppressionsTest, ApplyLeavesFindingsInUnreadableFilesAlone) {
  Files F; // nothing readable
  Report R;
  R.Diagnostics = {finding("tilefit-budget", "k.cu", 1, "one"),
                   finding("tilefit-optin", "k.cu", 2, "two")};
  R.Diagnostics[1].Notes.push_back({"launched here", {"h.cuh", 4, 2}});
  EXPECT_EQ(applySuppressions(R, F.reader()), 0u);
  EXPECT_EQ(messages(R), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(F.Reads["k.cu"], 1);
  EXPECT_EQ(F.Reads["h.cuh"], 1);
}

TEST(SuppressionsTest, ApplyKeepsFindingsWithoutAPosition) {
  Files F;
  F.Text[""] = "// NOLINT\n";
  F.Text["k.cu"] = "// NOLINT\n";
  Report R;
  R.Diagnostics = {finding("tilefit-budget", "", 1, "no file"),
                   finding("tilefit-budget", "k.cu", 0, "no line")};
  EXPECT_EQ(applySuppressions(R, F.reader()), 0u);
  EXPECT_EQ(messages(R), (std::vector<std::string>{"no file", "no line"}));
  EXPECT_TRUE(F.Reads.empty());
}

TEST(SuppressionsTest, ApplyReportsUnmatchedCommentsOfFilesWithFindings) {
  Files F;
  F.Text["k.cu"] = "__global__ void a() {}\n"         // 1
                   "// NOLINTBEGIN(tilefit-budget)\n" // 2
                   "__global__ void b() {}\n";        // 3
  F.Text["h.cuh"] = "// NOLINTEND\n"                  // 1
                    "__shared__ float t[8];\n";       // 2
  Report R;
  Diagnostic A = finding("tilefit-budget", "k.cu", 1, "a");
  Diagnostic B = finding("tilefit-budget", "k.cu", 3, "b");
  // h.cuh is read only for a note's line: its unmatched END is not reported.
  B.Notes.push_back({"allocated here", {"h.cuh", 2, 1}});
  R.Diagnostics = {A, B};
  EXPECT_EQ(applySuppressions(R, F.reader()), 0u);
  ASSERT_EQ(R.Diagnostics.size(), 3u);
  EXPECT_EQ(R.Diagnostics[0].Message, "a");
  EXPECT_EQ(R.Diagnostics[1].Message, "b");
  // The unmatched BEGIN, once although the file has two findings, after the
  // findings.
  const Diagnostic &P = R.Diagnostics[2];
  EXPECT_EQ(P.Check, "tilefit-nolint");
  EXPECT_EQ(P.Level, Severity::Error);
  EXPECT_EQ(P.Loc.File, "k.cu");
  EXPECT_EQ(P.Loc.Line, 2u);
  EXPECT_EQ(P.Loc.Column, 4u);
  EXPECT_NE(P.Message.find("unmatched 'NOLINTBEGIN'"), std::string::npos)
      << P.Message;
  EXPECT_TRUE(R.ToolMessages.empty());
}

TEST(SuppressionsTest,
     ApplyReportsUnmatchedCommentsEvenWhenEveryFindingIsSuppressed) {
  Files F;
  F.Text["k.cu"] = "__global__ void a() {} // NOLINT\n"
                   "// NOLINTEND(tilefit-optin)\n";
  Report R;
  R.Diagnostics = {finding("tilefit-budget", "k.cu", 1, "a")};
  // The count is of findings dropped, not of problems added.
  EXPECT_EQ(applySuppressions(R, F.reader()), 1u);
  ASSERT_EQ(R.Diagnostics.size(), 1u);
  EXPECT_EQ(R.Diagnostics[0].Check, "tilefit-nolint");
  EXPECT_EQ(R.Diagnostics[0].Loc.Line, 2u);
}

TEST(SuppressionsTest, ApplyOnAReportWithoutFindingsReadsNothing) {
  Files F;
  Report R;
  EXPECT_EQ(applySuppressions(R, F.reader()), 0u);
  EXPECT_TRUE(R.Diagnostics.empty());
  EXPECT_TRUE(F.Reads.empty());
}

} // namespace
} // namespace tilefit
