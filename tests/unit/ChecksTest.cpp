//===- ChecksTest.cpp - Each kernel check on a hand-built kernel report ---===//
//
// The checks of model/checks/, registered from Checks.def, run one by one on
// reports built here: what each says, when it is silent, and that the registry
// holds every kernel check of the table, in its order.
//
//===----------------------------------------------------------------------===//
#include "../../model/checks/CheckSupport.h"

#include "tilefit/model/Layout.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace checks {
namespace {

std::vector<std::string> kernelCheckNames() {
  std::vector<std::string> Names;
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_KERNEL_CHECK(Enum, Name, Sev, Summary, Help)                   \
  Names.push_back(Name);
#include "tilefit/model/Checks.def"
  return Names;
}

/// A kernel of \p Static bytes on an sm_90-like architecture (48 KiB static and
/// by default, 227 KiB with opt-in), launched once with \p Dynamic bytes by 256
/// threads.
KernelReport kernel(uint64_t Static,
                    std::optional<uint64_t> Dynamic = std::nullopt) {
  KernelReport K;
  K.Name = "k";
  K.Arch = "sm_90";
  K.Loc = {"k.cu", 3, 17};
  K.StaticBytes = Static;
  K.Limit.StaticMax = 48 * 1024;
  K.Limit.BlockDefaultMax = 48 * 1024;
  K.Limit.BlockOptinMax = 227 * 1024;
  if (Dynamic) {
    LaunchReport L;
    L.Loc = {"k.cu", 20, 3};
    L.DynamicBytes = Dynamic;
    L.BlockThreads = 256;
    L.TotalBytes = Static + *Dynamic;
    K.Launches.push_back(L);
    K.WorstLaunch = 0;
  }
  return K;
}

/// The findings of the check named \p Name on \p K.
std::vector<Diagnostic> run(const std::string &Name, const KernelReport &K,
                            const AnalysisOptions &Opts = {}) {
  TranslationUnitFacts TU;
  TU.Kernels.emplace_back();
  UnitLayout Layout(TU);
  FitAdvisor Fit(TU, Layout, 0);
  KernelContext C{Fit, nullptr, Opts, std::nullopt, std::nullopt};
  std::vector<Diagnostic> Out;
  const std::vector<std::string> Names = kernelCheckNames();
  for (size_t I = 0; I < Names.size(); ++I)
    if (Names[I] == Name)
      kernelChecks()[I]->check(
          K, C, [&](Diagnostic D) { Out.push_back(std::move(D)); });
  return Out;
}

TEST(ChecksTest, TheRegistryHoldsEveryKernelCheckOfTheTableInItsOrder) {
  const std::vector<std::string> Names = kernelCheckNames();
  EXPECT_EQ(Names, (std::vector<std::string>{
                       "tilefit-static-limit", "tilefit-capacity",
                       "tilefit-budget", "tilefit-optin", "tilefit-occupancy",
                       "tilefit-registers", "tilefit-tmem",
                       "tilefit-bank-conflict"}));
  ASSERT_EQ(kernelChecks().size(), Names.size());
  for (size_t I = 0; I < Names.size(); ++I)
    EXPECT_NE(kernelChecks()[I], nullptr) << Names[I];
}

TEST(ChecksTest, TheRegistryHoldsEveryUnitCheckOfTheTable) {
  std::vector<std::string> Names;
#define TILEFIT_CHECK(Enum, Name, Sev, Summary, Help)
#define TILEFIT_UNIT_CHECK(Enum, Name, Sev, Summary, Help) Names.push_back(Name);
#include "tilefit/model/Checks.def"
  EXPECT_EQ(Names, std::vector<std::string>{"tilefit-constant"});
  ASSERT_EQ(unitChecks().size(), Names.size());
  // The constant-memory check, run from the registry on a unit over the limit.
  TranslationUnitFacts TU;
  TU.File = "c.cu";
  TU.Arch = "sm_90";
  UnitReport U;
  U.ConstantMemory.emplace();
  U.ConstantMemory->Bytes = 70000;
  U.ConstantMemory->Limit = 65536;
  std::vector<Diagnostic> Out;
  unitChecks()[0]->check(TU, U, AnalysisOptions(), Out);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Check, "tilefit-constant");
  AnalysisOptions Off;
  Off.Checks = "*,-tilefit-constant";
  Out.clear();
  unitChecks()[0]->check(TU, U, Off, Out);
  EXPECT_TRUE(Out.empty());
}

TEST(ChecksTest, StaticLimit) {
  EXPECT_TRUE(run("tilefit-static-limit", kernel(48 * 1024)).empty());
  auto D = run("tilefit-static-limit", kernel(48 * 1024 + 4));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Check, "tilefit-static-limit");
  EXPECT_EQ(D[0].Level, Severity::Error);
  EXPECT_NE(D[0].Message.find("49156 bytes"), std::string::npos)
      << D[0].Message;
  // A sum past 64 bits: no figure, still above the limit.
  KernelReport Huge = kernel(0);
  Huge.StaticBytes.reset();
  Huge.Overflows = true;
  D = run("tilefit-static-limit", Huge);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_NE(D[0].Message.find("than 64 bits can count"), std::string::npos)
      << D[0].Message;
}

TEST(ChecksTest, CapacityCountsTheLaunch) {
  EXPECT_TRUE(run("tilefit-capacity", kernel(1024, 200 * 1024)).empty());
  auto D = run("tilefit-capacity", kernel(1024, 227 * 1024));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_NE(D[0].Message.find("(1024 static + 232448 dynamic at launch)"),
            std::string::npos)
      << D[0].Message;
}

TEST(ChecksTest, BudgetIsSilentAboveAHardLimit) {
  // 210 KiB of 227: 92.5%, above the 90% budget.
  auto D = run("tilefit-budget", kernel(1024, 209 * 1024));
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Level, Severity::Warning);
  EXPECT_NE(D[0].Message.find("above the 90% budget"), std::string::npos)
      << D[0].Message;
  AnalysisOptions Loose;
  Loose.Budget = 0.95;
  EXPECT_TRUE(run("tilefit-budget", kernel(1024, 209 * 1024), Loose).empty());
  // Over the per-block maximum, or the static limit: the error says it, the
  // budget does not.
  EXPECT_TRUE(run("tilefit-budget", kernel(1024, 227 * 1024)).empty());
  EXPECT_TRUE(run("tilefit-budget", kernel(49 * 1024, 160 * 1024)).empty());
}

TEST(ChecksTest, OptInWithoutAndWithCudaFuncSetAttribute) {
  EXPECT_TRUE(run("tilefit-optin", kernel(1024, 47 * 1024)).empty());
  KernelReport K = kernel(1024, 64 * 1024);
  auto D = run("tilefit-optin", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_NE(D[0].Message.find("it may have without opting in"),
            std::string::npos)
      << D[0].Message;
  EXPECT_EQ(D[0].Loc.Line, 20u) << "at the launch";
  AttributeCall A;
  A.Attribute = AttributeCall::Kind::MaxDynamicSharedMemorySize;
  A.Value = 64 * 1024;
  K.Attributes.push_back(A);
  EXPECT_TRUE(run("tilefit-optin", K).empty());
  K.Attributes[0].Value = 32 * 1024;
  D = run("tilefit-optin", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_NE(D[0].Message.find("set with cudaFuncSetAttribute"),
            std::string::npos)
      << D[0].Message;
}

TEST(ChecksTest, OccupancyOnlyWhereSharedMemoryLimits) {
  KernelReport K = kernel(40 * 1024);
  K.Occupancy.BlockThreads = 256;
  K.Occupancy.BlocksPerSm = 5;
  K.Occupancy.SmemPerBlock = 41 * 1024;
  K.Occupancy.LimitedBy = "shared memory";
  auto D = run("tilefit-occupancy", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Level, Severity::Remark);
  K.Occupancy.LimitedBy = "warps";
  EXPECT_TRUE(run("tilefit-occupancy", K).empty());
  // Bounded, limited by warps: still nothing; by shared memory, below the
  // minimum: a warning.
  K.Bounds = LaunchBounds{256, 8, {"k.cu", 2, 1}};
  EXPECT_TRUE(run("tilefit-occupancy", K).empty());
  K.Occupancy.LimitedBy = "shared memory";
  D = run("tilefit-occupancy", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Level, Severity::Warning);
  EXPECT_NE(
      D[0].Message.find("fewer than the 8 its __launch_bounds__ asks for"),
      std::string::npos)
      << D[0].Message;
  // Above the static limit the kernel does not compile: no advice on its
  // occupancy.
  K.StaticBytes = 50 * 1024;
  EXPECT_TRUE(run("tilefit-occupancy", K).empty());
}

} // namespace
} // namespace checks
} // namespace tilefit
