//===- DiffTest.cpp - Footprints of two reports compared ------------------===//
//
// parseGrowthThreshold (--max-growth), diffReports on hand-built reports
// (kernels matched by mangled name and architecture, the per-block figure at
// the largest launch, thresholds, a template's changed arguments) and
// mergeReports (shards of one run).
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Diff.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace {

using Kind = KernelDelta::Kind;

//===----------------------------------------------------------------------===//
// parseGrowthThreshold
//===----------------------------------------------------------------------===//

TEST(DiffTest, GrowthThresholdInBytes) {
  struct Case {
    const char *Text;
    uint64_t Bytes;
  } Cases[] = {{"4096", 4096}, {"0", 0},     {"100B", 100},
               {"4KiB", 4096}, {"4K", 4096}, {"0KiB", 0}};
  for (const Case &C : Cases) {
    auto T = parseGrowthThreshold(C.Text);
    ASSERT_TRUE(T.has_value()) << C.Text;
    EXPECT_EQ(T->Bytes, C.Bytes) << C.Text;
    EXPECT_FALSE(T->Percent.has_value()) << C.Text;
  }
}

TEST(DiffTest, GrowthThresholdInPercent) {
  struct Case {
    const char *Text;
    double Percent;
  } Cases[] = {{"10%", 10}, {"2.5%", 2.5}, {"0%", 0}, {"150%", 150}};
  for (const Case &C : Cases) {
    auto T = parseGrowthThreshold(C.Text);
    ASSERT_TRUE(T.has_value()) << C.Text;
    ASSERT_TRUE(T->Percent.has_value()) << C.Text;
    EXPECT_DOUBLE_EQ(*T->Percent, C.Percent) << C.Text;
    EXPECT_EQ(T->Bytes, 0u) << C.Text;
  }
}

TEST(DiffTest, GrowthThresholdRejectsAnythingElse) {
  for (const char *Text :
       {"", "abc", "KiB", "B", "4MiB", "4M", "4kib", "4 KiB", "4KiBs", "1.5KiB",
        "0x10", "10%%", "10 %", "x%", "-5%", "-0.5%", "%x", "4KiB%5"})
    EXPECT_FALSE(parseGrowthThreshold(Text).has_value()) << "'" << Text << "'";
}

// "Nothing for anything else", says Diff.h, though strtoull and strtod accept
// more than the three forms: "-5" wrapped to 2^64 - 5 bytes (a threshold
// nothing exceeds), "%" alone was 0% (every growth exceeds it), "nan%" a
// threshold no growth exceeds, and a KiB count above 2^54 wrapped (2^54 KiB is
// 0 bytes).
TEST(DiffTest, GrowthThresholdRejectsSignsMissingNumbersAndOverflow) {
  for (const char *Text : {"-5", "-1KiB", "%", "nan%", "18014398509481984KiB"})
    EXPECT_FALSE(parseGrowthThreshold(Text).has_value()) << "'" << Text << "'";
}

//===----------------------------------------------------------------------===//
// diffReports
//===----------------------------------------------------------------------===//

/// A kernel of \p Static bytes (unknown when unset) defined at k.cu:12, not
/// launched.
KernelReport kernel(const std::string &Name, const std::string &Mangled,
                    std::optional<uint64_t> Static,
                    const std::string &Arch = "sm_90") {
  KernelReport K;
  K.Name = Name;
  K.Mangled = Mangled;
  K.Arch = Arch;
  K.Loc = {"k.cu", 12, 17};
  K.TranslationUnit = "k.cu";
  K.StaticBytes = Static;
  return K;
}

/// Adds a launch asking for \p Dynamic bytes; WorstLaunch as analyzeUnit sets
/// it (the first launch with the largest known total).
KernelReport launched(KernelReport K, uint64_t Dynamic) {
  LaunchReport L;
  L.Loc = {"k.cu", 40 + static_cast<unsigned>(K.Launches.size()), 3};
  L.DynamicBytes = Dynamic;
  if (K.StaticBytes)
    L.TotalBytes = *K.StaticBytes + Dynamic;
  K.Launches.push_back(L);
  if (L.TotalBytes && (!K.WorstLaunch ||
                       *L.TotalBytes > *K.Launches[*K.WorstLaunch].TotalBytes))
    K.WorstLaunch = K.Launches.size() - 1;
  return K;
}

KernelReport withBlocks(KernelReport K, uint64_t Blocks) {
  K.Occupancy.BlocksPerSm = Blocks;
  return K;
}

Report report(std::vector<KernelReport> Kernels) {
  Report R;
  R.Kernels = std::move(Kernels);
  return R;
}

std::vector<std::string> names(const std::vector<KernelDelta> &D) {
  std::vector<std::string> Out;
  for (const KernelDelta &X : D)
    Out.push_back(X.Name + "@" + X.Arch);
  return Out;
}

std::vector<Kind> kinds(const std::vector<KernelDelta> &D) {
  std::vector<Kind> Out;
  for (const KernelDelta &X : D)
    Out.push_back(X.K);
  return Out;
}

TEST(DiffTest, TheSameKernelIsUnchanged) {
  auto D = diffReports(report({kernel("k", "_Z1kv", 4096)}),
                       report({kernel("k", "_Z1kv", 4096)}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Unchanged);
  EXPECT_EQ(D[0].Name, "k");
  EXPECT_EQ(D[0].Mangled, "_Z1kv");
  EXPECT_EQ(D[0].Arch, "sm_90");
  EXPECT_EQ(D[0].Template, "");
  EXPECT_EQ(D[0].OldName, "");
  EXPECT_EQ(D[0].OldBytes, 4096u);
  EXPECT_EQ(D[0].NewBytes, 4096u);
  EXPECT_EQ(D[0].OldStatic, 4096u);
  EXPECT_EQ(D[0].NewStatic, 4096u);
  EXPECT_EQ(D[0].OldDynamic, 0u);
  EXPECT_EQ(D[0].NewDynamic, 0u);
  EXPECT_EQ(D[0].growth(), 0);
  EXPECT_FALSE(D[0].OverThreshold);
}

TEST(DiffTest, KernelsAreMatchedByMangledNameAndArchitecture) {
  // The same mangled name under another display name is the same kernel (named
  // as in New); the same kernel on another architecture is another kernel.
  Report Old = report(
      {kernel("old_name", "_Z1kv", 1024), kernel("k", "_Z1kv", 1024, "sm_80")});
  Report New = report({kernel("new_name", "_Z1kv", 1024),
                       kernel("k", "_Z1kv", 1024, "sm_100")});
  auto D = diffReports(Old, New, std::nullopt);
  EXPECT_EQ(names(D), (std::vector<std::string>{"new_name@sm_90", "k@sm_100",
                                                "k@sm_80"}));
  EXPECT_EQ(kinds(D),
            (std::vector<Kind>{Kind::Unchanged, Kind::Added, Kind::Removed}));
}

TEST(DiffTest, AddedAndRemovedHaveOnlyOneSide) {
  auto D = diffReports(report({kernel("gone", "_Z4gonev", 2048)}),
                       report({kernel("come", "_Z4comev", 1024)}),
                       GrowthThreshold{});
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D[0].K, Kind::Added);
  EXPECT_EQ(D[0].Name, "come");
  EXPECT_FALSE(D[0].OldBytes.has_value());
  EXPECT_FALSE(D[0].OldStatic.has_value());
  EXPECT_EQ(D[0].NewBytes, 1024u);
  EXPECT_EQ(D[0].growth(), 0);
  // Not a template's instantiation: a gone and a come kernel are not paired.
  EXPECT_EQ(D[1].K, Kind::Removed);
  EXPECT_EQ(D[1].Name, "gone");
  EXPECT_EQ(D[1].OldBytes, 2048u);
  EXPECT_FALSE(D[1].NewBytes.has_value());
  EXPECT_EQ(D[1].OldName, "");
  // A threshold of 0 bytes marks neither: only growth counts.
  EXPECT_FALSE(D[0].OverThreshold);
  EXPECT_FALSE(D[1].OverThreshold);
}

TEST(DiffTest, GrownAndShrunk) {
  Report Old = report({kernel("a", "_Z1av", 1000), kernel("b", "_Z1bv", 2000)});
  Report New = report({kernel("a", "_Z1av", 1500), kernel("b", "_Z1bv", 1000)});
  auto D = diffReports(Old, New, std::nullopt);
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D[0].K, Kind::Grown);
  EXPECT_EQ(D[0].growth(), 500);
  EXPECT_EQ(D[1].K, Kind::Shrunk);
  EXPECT_EQ(D[1].growth(), -1000);
  EXPECT_EQ(D[1].OldBytes, 2000u);
  EXPECT_EQ(D[1].NewBytes, 1000u);
}

TEST(DiffTest, FewerBlocksPerSmIsGrownAtTheSameBytes) {
  Report Old = report({withBlocks(kernel("a", "_Z1av", 1000), 4),
                       withBlocks(kernel("b", "_Z1bv", 1000), 2)});
  Report New = report({withBlocks(kernel("a", "_Z1av", 1000), 2),
                       withBlocks(kernel("b", "_Z1bv", 1000), 4)});
  auto D = diffReports(Old, New, GrowthThreshold{});
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D[0].K, Kind::Grown);
  EXPECT_EQ(D[0].OldBlocks, 4u);
  EXPECT_EQ(D[0].NewBlocks, 2u);
  EXPECT_EQ(D[0].growth(), 0);
  // The threshold is about bytes: no byte grew.
  EXPECT_FALSE(D[0].OverThreshold);
  // More blocks alone is no change worth a kind.
  EXPECT_EQ(D[1].K, Kind::Unchanged);
}

TEST(DiffTest, PerBlockBytesAreAtTheLargestLaunch) {
  // Old: 5120 static bytes, not launched. New: 1024 static and 4096 dynamic at
  // its largest launch: the same per block, split otherwise.
  KernelReport Before = kernel("k", "_Z1kv", 5120);
  KernelReport After =
      launched(launched(launched(kernel("k", "_Z1kv", 1024), 512), 4096), 0);
  ASSERT_EQ(After.WorstLaunch, 1u);
  auto D = diffReports(report({Before}), report({After}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Unchanged);
  EXPECT_EQ(D[0].OldBytes, 5120u);
  EXPECT_EQ(D[0].NewBytes, 5120u);
  EXPECT_EQ(D[0].OldStatic, 5120u);
  EXPECT_EQ(D[0].NewStatic, 1024u);
  EXPECT_EQ(D[0].OldDynamic, 0u);
  EXPECT_EQ(D[0].NewDynamic, 4096u);

  // One more byte of dynamic memory at the largest launch is growth.
  KernelReport Bigger =
      launched(launched(kernel("k", "_Z1kv", 1024), 512), 4097);
  D = diffReports(report({After}), report({Bigger}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Grown);
  EXPECT_EQ(D[0].growth(), 1);
}

TEST(DiffTest, UnknownFiguresAreNoGrowth) {
  // Unknown static bytes: the per-block figure is unknown (launched or not) and
  // growth() is 0, whatever the other side.
  KernelReport Unknown = kernel("k", "_Z1kv", std::nullopt);
  KernelReport UnknownLaunched = launched(Unknown, 4096);
  KernelReport Known = kernel("k", "_Z1kv", 1 << 20);
  for (const KernelReport *Old : {&Unknown, &UnknownLaunched}) {
    auto D = diffReports(report({*Old}), report({Known}), GrowthThreshold{});
    ASSERT_EQ(D.size(), 1u);
    EXPECT_EQ(D[0].K, Kind::Unchanged);
    EXPECT_FALSE(D[0].OldBytes.has_value());
    EXPECT_FALSE(D[0].OldStatic.has_value());
    EXPECT_EQ(D[0].NewBytes, 1u << 20);
    EXPECT_EQ(D[0].growth(), 0);
    EXPECT_FALSE(D[0].OverThreshold);
  }
  auto D = diffReports(report({Known}), report({Unknown}), GrowthThreshold{});
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Unchanged);
  EXPECT_EQ(D[0].OldBytes, 1u << 20);
  EXPECT_FALSE(D[0].NewBytes.has_value());
  EXPECT_EQ(D[0].growth(), 0);
}

TEST(DiffTest, OrderIsNewsOrderThenOldOnlyKernels) {
  Report Old = report({kernel("b", "_Z1bv", 1), kernel("x", "_Z1xv", 1),
                       kernel("a", "_Z1av", 1), kernel("y", "_Z1yv", 1)});
  Report New = report({kernel("c", "_Z1cv", 1), kernel("a", "_Z1av", 1),
                       kernel("b", "_Z1bv", 1)});
  auto D = diffReports(Old, New, std::nullopt);
  EXPECT_EQ(names(D), (std::vector<std::string>{"c@sm_90", "a@sm_90", "b@sm_90",
                                                "x@sm_90", "y@sm_90"}));
  EXPECT_EQ(kinds(D),
            (std::vector<Kind>{Kind::Added, Kind::Unchanged, Kind::Unchanged,
                               Kind::Removed, Kind::Removed}));
}

TEST(DiffTest, AKernelSeenFromSeveralUnitsIsOneDelta) {
  KernelReport FromA = kernel("h", "_Z1hv", 100);
  KernelReport FromB = FromA;
  FromB.TranslationUnit = "b.cu";
  auto D =
      diffReports(report({FromA, FromB}), report({FromA, FromB}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Unchanged);
  D = diffReports(report({FromA, FromB}), report({}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Removed);
  D = diffReports(report({}), report({FromA, FromB}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Added);
}

TEST(DiffTest, ThresholdInBytesIsExceededOnlyByMore) {
  Report Old = report({kernel("k", "_Z1kv", 1000)});
  Report New = report({kernel("k", "_Z1kv", 1100)});
  auto Over = [&](std::optional<GrowthThreshold> T) {
    auto D = diffReports(Old, New, T);
    EXPECT_EQ(D.size(), 1u);
    EXPECT_EQ(D.at(0).K, Kind::Grown);
    return D.at(0).OverThreshold;
  };
  EXPECT_FALSE(Over(std::nullopt));
  EXPECT_FALSE(Over(parseGrowthThreshold("100")));
  EXPECT_TRUE(Over(parseGrowthThreshold("99")));
  EXPECT_TRUE(Over(parseGrowthThreshold("0")));
  EXPECT_FALSE(Over(parseGrowthThreshold("1KiB")));
  // A kernel that shrank is never over.
  auto D = diffReports(New, Old, parseGrowthThreshold("0"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Shrunk);
  EXPECT_FALSE(D[0].OverThreshold);
}

TEST(DiffTest, ThresholdInPercentIsOfTheOldFigure) {
  Report Old = report({kernel("k", "_Z1kv", 1000), kernel("m", "_Z1mv", 4000)});
  Report New = report({kernel("k", "_Z1kv", 1100), kernel("m", "_Z1mv", 4100)});
  auto Over = [&](const char *T) {
    auto D = diffReports(Old, New, parseGrowthThreshold(T));
    EXPECT_EQ(D.size(), 2u);
    std::vector<bool> Out;
    for (const KernelDelta &X : D)
      Out.push_back(X.OverThreshold);
    return Out;
  };
  // k grew by 10%, m by 2.5%: the same 100 bytes.
  EXPECT_EQ(Over("10%"), (std::vector<bool>{false, false}));
  EXPECT_EQ(Over("9.9%"), (std::vector<bool>{true, false}));
  EXPECT_EQ(Over("2.5%"), (std::vector<bool>{true, false}));
  EXPECT_EQ(Over("2%"), (std::vector<bool>{true, true}));
  EXPECT_EQ(Over("0%"), (std::vector<bool>{true, true}));
}

TEST(DiffTest, ATemplateWithOneInstantiationGoneAndOneComeIsRetemplated) {
  Report Old = report({kernel("x", "_Z1xv", 8),
                       kernel("gemm<128, 64, 16, 3>", "_Z4gemmILi3EEvv", 49152),
                       kernel("y", "_Z1yv", 8)});
  Report New =
      report({kernel("x", "_Z1xv", 8),
              kernel("gemm<128, 64, 16, 5>", "_Z4gemmILi5EEvv", 49152)});
  auto D = diffReports(Old, New, GrowthThreshold{});
  // The gone instantiation is no Removed delta of its own.
  EXPECT_EQ(names(D), (std::vector<std::string>{
                          "x@sm_90", "gemm<128, 64, 16, 5>@sm_90", "y@sm_90"}));
  EXPECT_EQ(kinds(D), (std::vector<Kind>{Kind::Unchanged, Kind::Retemplated,
                                         Kind::Removed}));
  ASSERT_EQ(D.size(), 3u);
  const KernelDelta &G = D[1];
  EXPECT_EQ(G.OldName, "gemm<128, 64, 16, 3>");
  EXPECT_EQ(G.Mangled, "_Z4gemmILi5EEvv");
  EXPECT_EQ(G.Template, "gemm@k.cu:12");
  EXPECT_EQ(G.OldBytes, 49152u);
  EXPECT_EQ(G.NewBytes, 49152u);
  EXPECT_EQ(G.OldStatic, 49152u);
  EXPECT_EQ(G.OldDynamic, 0u);
  EXPECT_FALSE(G.OverThreshold);
}

TEST(DiffTest, ARetemplatedKernelWhoseFigureChangedIsGrownOrShrunk) {
  KernelReport Three =
      withBlocks(kernel("ns::gemm<3>", "_ZN2ns4gemmILi3EEEvv", 36864), 6);
  KernelReport Five =
      withBlocks(kernel("ns::gemm<5>", "_ZN2ns4gemmILi5EEEvv", 61440), 3);
  auto D =
      diffReports(report({Three}), report({Five}), parseGrowthThreshold("50%"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Grown);
  EXPECT_EQ(D[0].Name, "ns::gemm<5>");
  EXPECT_EQ(D[0].OldName, "ns::gemm<3>");
  EXPECT_EQ(D[0].Template, "ns::gemm@k.cu:12");
  EXPECT_EQ(D[0].OldBytes, 36864u);
  EXPECT_EQ(D[0].NewBytes, 61440u);
  EXPECT_EQ(D[0].OldBlocks, 6u);
  EXPECT_EQ(D[0].NewBlocks, 3u);
  EXPECT_EQ(D[0].growth(), 24576);
  // 24576 bytes is 66% of 36864: over 50%.
  EXPECT_TRUE(D[0].OverThreshold);

  D = diffReports(report({Five}), report({Three}), parseGrowthThreshold("0"));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Shrunk);
  EXPECT_EQ(D[0].OldName, "ns::gemm<5>");
  EXPECT_EQ(D[0].growth(), -24576);
  EXPECT_FALSE(D[0].OverThreshold);

  // The same bytes but fewer blocks per SM is growth too.
  KernelReport FewerBlocks =
      withBlocks(kernel("ns::gemm<4>", "_ZN2ns4gemmILi4EEEvv", 36864), 5);
  D = diffReports(report({Three}), report({FewerBlocks}), std::nullopt);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Kind::Grown);
  EXPECT_EQ(D[0].OldName, "ns::gemm<3>");
}

TEST(DiffTest, SeveralInstantiationsGoneOrComeStayAddedAndRemoved) {
  KernelReport G1 = kernel("gemm<1>", "_Z4gemmILi1EEvv", 100);
  KernelReport G2 = kernel("gemm<2>", "_Z4gemmILi2EEvv", 200);
  KernelReport G3 = kernel("gemm<3>", "_Z4gemmILi3EEvv", 300);
  // Two gone, one come.
  auto D = diffReports(report({G1, G2}), report({G3}), std::nullopt);
  EXPECT_EQ(names(D), (std::vector<std::string>{
                          "gemm<3>@sm_90", "gemm<1>@sm_90", "gemm<2>@sm_90"}));
  EXPECT_EQ(kinds(D),
            (std::vector<Kind>{Kind::Added, Kind::Removed, Kind::Removed}));
  for (const KernelDelta &X : D)
    EXPECT_EQ(X.OldName, "") << X.Name;
  // One gone, two come.
  D = diffReports(report({G1}), report({G2, G3}), std::nullopt);
  EXPECT_EQ(kinds(D),
            (std::vector<Kind>{Kind::Added, Kind::Added, Kind::Removed}));
  for (const KernelDelta &X : D)
    EXPECT_EQ(X.OldName, "") << X.Name;
  // One stays, one gone, one come: the two that changed are paired.
  D = diffReports(report({G1, G2}), report({G1, G3}), std::nullopt);
  EXPECT_EQ(kinds(D), (std::vector<Kind>{Kind::Unchanged, Kind::Grown}));
  EXPECT_EQ(D.at(1).OldName, "gemm<2>");
}

TEST(DiffTest, InstantiationsArePairedOnlyWithinOneTemplateAndArchitecture) {
  KernelReport Old80 = kernel("gemm<1>", "_Z4gemmILi1EEvv", 100, "sm_80");
  KernelReport New90 = kernel("gemm<2>", "_Z4gemmILi2EEvv", 100, "sm_90");
  auto D = diffReports(report({Old80}), report({New90}), std::nullopt);
  EXPECT_EQ(kinds(D), (std::vector<Kind>{Kind::Added, Kind::Removed}));

  // Another template of the same name, defined elsewhere.
  KernelReport Elsewhere = kernel("gemm<2>", "_Z4gemmILi2EEvv", 100, "sm_80");
  Elsewhere.Loc = {"other.cu", 12, 17};
  D = diffReports(report({Old80}), report({Elsewhere}), std::nullopt);
  EXPECT_EQ(kinds(D), (std::vector<Kind>{Kind::Added, Kind::Removed}));
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D[0].Template, "gemm@other.cu:12");
  EXPECT_EQ(D[1].Template, "gemm@k.cu:12");

  // Another template at the same place.
  KernelReport Other = kernel("conv<2>", "_Z4convILi2EEvv", 100, "sm_80");
  D = diffReports(report({Old80}), report({Other}), std::nullopt);
  EXPECT_EQ(kinds(D), (std::vector<Kind>{Kind::Added, Kind::Removed}));
}

//===----------------------------------------------------------------------===//
// mergeReports
//===----------------------------------------------------------------------===//

UnitReport unit(const std::string &File, const std::string &Arch) {
  UnitReport U;
  U.File = File;
  U.Arch = Arch;
  return U;
}

Diagnostic diag(const std::string &File, unsigned Line,
                const std::string &Message) {
  Diagnostic D;
  D.Check = "tilefit-budget";
  D.Message = Message;
  D.Loc = {File, Line, 1};
  D.Arch = "sm_90";
  D.TranslationUnit = File;
  return D;
}

TEST(DiffTest, MergeConcatenatesSortsAndDropsDuplicates) {
  Report A;
  A.Units = {unit("b.cu", "sm_90")};
  KernelReport KB = kernel("kb", "_Z2kbv", 10);
  KB.TranslationUnit = KB.Loc.File = "b.cu";
  A.Kernels = {KB};
  A.Diagnostics = {diag("b.cu", 3, "in b")};
  A.ToolMessages = {diag("compile_commands.json", 0, "bad entry")};

  Report B;
  B.Units = {unit("a.cu", "sm_90"), unit("a.cu", "sm_80")};
  KernelReport KA = kernel("ka", "_Z2kav", 20);
  KA.TranslationUnit = KA.Loc.File = "a.cu";
  B.Kernels = {KA};
  // The same finding (a header kernel seen by both shards) and one of its own.
  B.Diagnostics = {diag("b.cu", 3, "in b"), diag("a.cu", 1, "in a")};
  B.ToolMessages = {diag("compile_commands.json", 0, "bad entry"),
                    diag("compile_commands.json", 0, "other entry"),
                    diag("other.json", 0, "bad entry")};
  B.SourceRoot = "/src";

  Report C;
  C.SourceRoot = "/elsewhere";

  Report R = mergeReports({A, B, C});
  ASSERT_EQ(R.Units.size(), 3u);
  EXPECT_EQ(R.Units[0].File + " " + R.Units[0].Arch, "a.cu sm_80");
  EXPECT_EQ(R.Units[1].File + " " + R.Units[1].Arch, "a.cu sm_90");
  EXPECT_EQ(R.Units[2].File + " " + R.Units[2].Arch, "b.cu sm_90");
  ASSERT_EQ(R.Kernels.size(), 2u);
  EXPECT_EQ(R.Kernels[0].Name, "ka");
  EXPECT_EQ(R.Kernels[1].Name, "kb");
  ASSERT_EQ(R.Diagnostics.size(), 2u);
  EXPECT_EQ(R.Diagnostics[0].Message, "in a");
  EXPECT_EQ(R.Diagnostics[1].Message, "in b");
  // A run-wide message once, whichever shard said it; the same words about
  // another file stay.
  ASSERT_EQ(R.ToolMessages.size(), 3u);
  EXPECT_EQ(R.ToolMessages[0].Message, "bad entry");
  EXPECT_EQ(R.ToolMessages[0].Loc.File, "compile_commands.json");
  EXPECT_EQ(R.ToolMessages[1].Message, "other entry");
  EXPECT_EQ(R.ToolMessages[2].Message, "bad entry");
  EXPECT_EQ(R.ToolMessages[2].Loc.File, "other.json");
  // The first shard that knows the source root gives it.
  EXPECT_EQ(R.SourceRoot, "/src");
}

TEST(DiffTest, MergeKeepsFindingsThatDifferInArchitectureOrCheck) {
  Report A, B;
  A.Diagnostics = {diag("k.cu", 5, "over")};
  B.Diagnostics = {diag("k.cu", 5, "over"), diag("k.cu", 5, "over"),
                   diag("k.cu", 5, "over")};
  B.Diagnostics[1].Arch = "sm_80";
  B.Diagnostics[2].Check = "tilefit-capacity";
  Report R = mergeReports({A, B});
  ASSERT_EQ(R.Diagnostics.size(), 3u);
  EXPECT_EQ(R.Diagnostics[0].Arch, "sm_80");
  EXPECT_EQ(R.Diagnostics[1].Check, "tilefit-budget");
  EXPECT_EQ(R.Diagnostics[1].Arch, "sm_90");
  EXPECT_EQ(R.Diagnostics[2].Check, "tilefit-capacity");
}

TEST(DiffTest, MergeOfNothingIsAnEmptyReport) {
  Report R = mergeReports({});
  EXPECT_TRUE(R.Units.empty());
  EXPECT_TRUE(R.Kernels.empty());
  EXPECT_TRUE(R.Diagnostics.empty());
  EXPECT_TRUE(R.ToolMessages.empty());
  EXPECT_EQ(R.SourceRoot, "");
}

} // namespace
} // namespace tilefit
