//===- CiGateTest.cpp -----------------------------------------------------===//
// Exit statuses, NOLINT, configuration, SARIF, diff,.
#include "CliFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <regex>
#include <unistd.h>

namespace tilefit {
namespace test {
namespace {

/// 8 KiB of static shared memory: with --budget=0.01 on sm_90 (227 KiB), a
/// budget warning.
const char BudgetKernel[] = R"(__global__ void warm(float *o) {
  __shared__ float tile[2048];
  tile[threadIdx.x % 2048] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = tile[(threadIdx.x + 1) % 2048];
}
)";

class CiGate : public CliTest {
protected:
  /// The checks of the diagnostics in a JSON report, "check@line".
  static std::vector<std::string> findings(const nlohmann::json &J) {
    std::vector<std::string> Out;
    for (const auto &D : J["diagnostics"])
      Out.push_back(D["check"].get<std::string>() + "@" +
                    std::to_string(D["line"].get<int>()));
    return Out;
  }
};

TEST_F(CiGate, ExitStatusFollowsFailOn) {
  std::string K = write("k.cu", BudgetKernel);
  std::vector<std::string> Base = {"--arch=sm_90", "--budget=0.01", K, "--"};
  auto Run = [&](std::vector<std::string> More) {
    More.insert(More.begin(), Base.begin(), Base.end() - 2);
    More.push_back(K);
    More.push_back("--");
    return tilefit(More).Status;
  };
  EXPECT_EQ(Run({}), 0) << "a warning does not fail by default";
  EXPECT_EQ(Run({"--fail-on=error"}), 0);
  EXPECT_EQ(Run({"--fail-on=warning"}), 1);
  EXPECT_EQ(Run({"--fail-on=note"}), 1);
  EXPECT_EQ(Run({"--fail-on=bogus"}), 2);
  // A remark fails only --fail-on=note: 8 KiB blocks of 1024 threads are
  // warp-limited, no remark; with 100 KiB of static... use the budget check off
  // and look at the remark-free run.
  EXPECT_EQ(Run({"--checks=-*,tilefit-input", "--fail-on=note"}), 0)
      << "the budget check off, no finding";
}

// A typo in a check list must not turn the gate off: a glob that matches no
// check is an error naming it and the closest check, on the command line
// (exit 2), in a configuration (file:line:col, exit 2) and in a NOLINT comment
// (a tilefit-nolint finding); a list that enables nothing is an error too.
TEST_F(CiGate, MisspelledChecksAreErrorsNotSilence) {
  std::string K = write("k.cu", BudgetKernel);
  CommandResult R = tilefit(
      {"--arch=sm_90", "--budget=0.01", "--checks=tilefit-budgte", K, "--"});
  EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
  EXPECT_NE(R.Err.find("--checks: 'tilefit-budgte' matches no check; did you "
                       "mean 'tilefit-budget'?"),
            std::string::npos)
      << R.Err;
  R = tilefit({"--arch=sm_90", "--budget=0.01",
               "--warnings-as-errors=tilefit-*,-tilefit-budgte", K, "--"});
  EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
  EXPECT_NE(R.Err.find("--warnings-as-errors: 'tilefit-budgte' matches no "
                       "check; did you mean 'tilefit-budget'?"),
            std::string::npos)
      << R.Err;
  R = tilefit({"--arch=sm_90", "--checks=-*", K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("--checks: '-*' enables no check"), std::string::npos)
      << R.Err;
  R = tilefit({"--arch=sm_90", "--checks=frobnicate-*", K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("'frobnicate-*' matches no check (tilefit "
                       "--list-checks lists them)"),
            std::string::npos)
      << R.Err;
  // Globs that match something are fine, the negative ones included.
  R = tilefit({"--arch=sm_90", "--budget=0.01",
               "--checks=tilefit-*,-tilefit-reg*", "--fail-on=warning", K,
               "--"});
  EXPECT_EQ(R.Status, 1) << R.Err;

  write(".tilefit.yaml", "Budget: 0.01\nChecks: 'tilefit-budgte'\n");
  R = tilefit({"--arch=sm_90", K, "--"});
  EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
  EXPECT_NE(R.Err.find(".tilefit.yaml:2:9: Checks: 'tilefit-budgte' matches "
                       "no check; did you mean 'tilefit-budget'?"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "WarningsAsErrors: 'tilefit-static-limt'\n");
  R = tilefit({"--arch=sm_90", K, "--"});
  EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
  EXPECT_NE(R.Err.find(".tilefit.yaml:1:19: WarningsAsErrors: "
                       "'tilefit-static-limt' matches no check; did you mean "
                       "'tilefit-static-limit'?"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "Checks: '-*'\n");
  R = tilefit({"--arch=sm_90", K, "--"});
  EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
  EXPECT_NE(R.Err.find("enables no check"), std::string::npos) << R.Err;
  llvm::sys::fs::remove(Dir + "/.tilefit.yaml");

  // NOLINT: the finding stands, and the comment is a finding of its own.
  K = write("n.cu",
            R"(__global__ void typo(float *o) { // NOLINT(tilefit-budgte)
  __shared__ float tile[2048];
  tile[threadIdx.x % 2048] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = tile[(threadIdx.x + 1) % 2048];
}
__global__ void shared_list(float *o) { // NOLINT(readability-magic-numbers, tilefit-budget)
  __shared__ float tile[2048];
  tile[threadIdx.x % 2048] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = tile[(threadIdx.x + 1) % 2048];
}
)");
  R = tilefit({"--arch=sm_90", "--budget=0.01", "--format=json", K, "--"});
  nlohmann::json J = json(R);
  std::vector<std::string> Found = findings(J);
  std::sort(Found.begin(), Found.end());
  EXPECT_EQ(Found,
            (std::vector<std::string>{"tilefit-budget@1", "tilefit-nolint@1"}))
      << R.Out;
  bool Named = false;
  for (const auto &D : J["diagnostics"])
    Named |= D["message"].get<std::string>().find(
                 "'tilefit-budgte' in this NOLINT comment matches no check; "
                 "did you mean 'tilefit-budget'?") != std::string::npos;
  EXPECT_TRUE(Named) << R.Out;
  EXPECT_EQ(R.Status, 1);
}

TEST_F(CiGate, WarningsAsErrorsPromotesMatchingChecks) {
  std::string K = write("k.cu", BudgetKernel);
  CommandResult R = tilefit({"--arch=sm_90", "--budget=0.01",
                             "--warnings-as-errors=tilefit-bud*", K, "--"});
  EXPECT_EQ(R.Status, 1);
  EXPECT_NE(R.Out.find("error: kernel 'warm' uses 8192 bytes"),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("[tilefit-budget,-warnings-as-errors]"),
            std::string::npos)
      << R.Out;
  R = tilefit({"--arch=sm_90", "--budget=0.01",
               "--warnings-as-errors=tilefit-*,-tilefit-budget", K, "--"});
  EXPECT_EQ(R.Status, 0) << "the last matching glob decides: excluded";
}

TEST_F(CiGate, NolintForms) {
  // Each kernel has one budget warning unless a comment suppresses it.
  std::string K = write(
      "k.cu",
      R"(#define BODY(n) __shared__ float t[2048]; t[threadIdx.x % 2048] = o[0]; __syncthreads(); o[1] = t[(threadIdx.x + n) % 2048];
__global__ void plain(float *o) { BODY(1) }
__global__ void all(float *o) { BODY(2) } // NOLINT
__global__ void listed(float *o) { BODY(3) } // NOLINT(tilefit-budget)
__global__ void globbed(float *o) { BODY(4) } // NOLINT(tilefit-bud*, something-else)
__global__ void other(float *o) { BODY(5) } // NOLINT(tilefit-capacity)
// NOLINTNEXTLINE(tilefit-budget)
__global__ void next(float *o) { BODY(6) }
// NOLINTBEGIN(tilefit-*)
__global__ void ranged1(float *o) { BODY(7) }
__global__ void ranged2(float *o) { BODY(8) }
// NOLINTEND(tilefit-*)
__global__ void after(float *o) { BODY(9) }
__global__ void at_allocation(float *o) {
  __shared__ float t[2048]; // NOLINT(tilefit-budget)
  t[threadIdx.x % 2048] = o[0];
  __syncthreads();
  o[1] = t[(threadIdx.x + 10) % 2048];
}
// NOLINTBEGIN(tilefit-occupancy)
// NOLINTEND(tilefit-budget)
)");
  CommandResult R =
      tilefit({"--arch=sm_90", "--budget=0.01", "--format=json", K, "--"});
  nlohmann::json J = json(R);
  std::vector<std::string> Found = findings(J);
  std::sort(Found.begin(), Found.end());
  EXPECT_EQ(Found,
            (std::vector<std::string>{"tilefit-budget@13", "tilefit-budget@2",
                                      "tilefit-budget@6", "tilefit-nolint@20",
                                      "tilefit-nolint@21"}))
      << R.Out;
  EXPECT_EQ(R.Status, 1) << "unmatched NOLINTBEGIN/END are errors";
  bool BeginMsg = false, EndMsg = false;
  for (const auto &D : J["diagnostics"]) {
    std::string M = D["message"];
    BeginMsg |= M.find("unmatched 'NOLINTBEGIN'") != std::string::npos;
    EndMsg |= M.find("unmatched 'NOLINTEND'") != std::string::npos;
  }
  EXPECT_TRUE(BeginMsg && EndMsg);
}

/// The summary table's row of kernel \p Name in \p Out; "" when absent.
std::string summaryRow(const std::string &Out, const std::string &Name) {
  size_t At = Out.find("\n" + Name + " ");
  return At == std::string::npos
             ? std::string()
             : Out.substr(At + 1, Out.find('\n', At + 1) - At - 1);
}

// A NOLINT'd finding marks nothing in the table; a header read only for a note
// (the kernel's definition under a launch's error) has no findings of its own,
// so its unmatched NOLINTBEGIN says nothing, as in clang-tidy.
TEST_F(CiGate, NolintLeavesNoMarkAndNoNoiseInFilesWithoutFindings) {
  write("dyn.cuh", R"(// NOLINTBEGIN(tilefit-occupancy)
__global__ void dyn(float *o) { extern __shared__ float d[]; d[threadIdx.x] = o[0]; __syncthreads(); o[1] = d[threadIdx.x + 1]; }
)");
  std::string K = write("k.cu", R"(#include "dyn.cuh"
#define BODY(n) __shared__ float t[10240]; t[threadIdx.x] = o[n]; __syncthreads(); o[0] = t[threadIdx.x + 1];
__global__ void __launch_bounds__(256, 8) quiet(float *o) { BODY(1) } // NOLINT(tilefit-occupancy)
__global__ void __launch_bounds__(256, 8) loud(float *o) { BODY(2) }
void host(float *o) { dyn<<<1, 128, 65536>>>(o); }
)");
  CommandResult R = tilefit({"--arch=sm_90", K, "--"});
  EXPECT_EQ(R.Status, 1) << R.Out;
  EXPECT_EQ(R.Out.find("tilefit-nolint"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("k.cu:5:23: error: launch of kernel 'dyn'"),
            std::string::npos)
      << R.Out;
  // The table: 'loud' marked, 'quiet' not.
  auto Row = [&](const std::string &Name) { return summaryRow(R.Out, Name); };
  EXPECT_NE(Row("loud").find('~'), std::string::npos) << R.Out;
  ASSERT_FALSE(Row("quiet").empty()) << R.Out;
  EXPECT_EQ(Row("quiet").find('~'), std::string::npos) << Row("quiet");
}

TEST_F(CiGate, NolintAtTheLaunch) {
  std::string K = write("k.cu", R"(
__global__ void dyn(float *o) { extern __shared__ float d[]; d[threadIdx.x] = o[0]; __syncthreads(); o[1] = d[threadIdx.x + 1]; }
void host(float *o) {
  dyn<<<1, 128, 65536>>>(o);
  dyn<<<1, 128, 60000>>>(o); // NOLINT(tilefit-optin)
}
)");
  CommandResult R = tilefit({"--arch=sm_90", "--format=json", K, "--"});
  nlohmann::json J = json(R);
  std::vector<std::string> Found = findings(J);
  // The 64 KiB launch is the worst: its optin error stays; the other is
  // suppressed.
  EXPECT_EQ(std::count(Found.begin(), Found.end(), "tilefit-optin@4"), 1)
      << R.Out;
  EXPECT_EQ(std::count(Found.begin(), Found.end(), "tilefit-optin@5"), 0)
      << R.Out;
}

TEST_F(CiGate, ConfigurationFileIsFoundAboveTheSource) {
  write(".tilefit.yaml", "Budget: 0.01\nArchitectures: [sm_80, sm_90]\n");
  std::string K = write("src/deep/k.cu", BudgetKernel);
  CommandResult R = tilefit({"--format=json", K, "--"});
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 2u) << R.Err;
  EXPECT_EQ(J["kernels"][0]["arch"], "sm_80");
  EXPECT_EQ(findings(J).size(), 2u)
      << "the configured budget warns on both architectures";
  // The command line wins over the file.
  J = json(tilefit({"--format=json", "--arch=sm_90", "--budget=0.9", K, "--"}));
  EXPECT_EQ(J["kernels"].size(), 1u);
  EXPECT_TRUE(J["diagnostics"].empty());
}

TEST_F(CiGate, ConfigurationChecksKernelBudgetsHeaderFilterAndDatabase) {
  write(
      "limits.json",
      R"({"architectures": {"sm_90": {"shared_memory": {"block_default_max": 8000, "block_optin_max": 10000}}}})");
  write("conf.json", R"({"Checks": "tilefit-*,-tilefit-occupancy",
    "KernelBudgets": [{"Kernel": "w*", "Bytes": 4096}],
    "CapacityDatabase": "limits.json", "Architectures": ["sm_90"]})");
  std::string K = write("k.cu", BudgetKernel);
  CommandResult R = tilefit(
      {"--config-file=" + Dir + "/conf.json", "--format=json", K, "--"});
  nlohmann::json J = json(R);
  ASSERT_EQ(J["diagnostics"].size(), 1u) << R.Out << R.Err;
  EXPECT_EQ(J["diagnostics"][0]["check"], "tilefit-budget");
  EXPECT_NE(J["diagnostics"][0]["message"].get<std::string>().find(
                "its budget of 4096 bytes (4 KiB) (w*)"),
            std::string::npos)
      << J["diagnostics"][0]["message"];
  EXPECT_EQ(J["kernels"][0]["limits"]["block_optin_max"], 10000)
      << "the configured database";
  // Inline configuration over the file: disable the check.
  J = json(tilefit({"--config-file=" + Dir + "/conf.json",
                    "--config={Checks: '-*,tilefit-input'}", "--format=json", K,
                    "--"}));
  EXPECT_TRUE(J["diagnostics"].empty());
}

// Sizes tilefit cannot compute: DynamicSharedMemory states them per kernel
// glob, for each launch of unknown size and for a kernel the unit never
// launches; they are checked like any other, and said to be stated. Kernels
// that declare no extern __shared__ array lose their `+ ?` for one legend line.
TEST_F(CiGate, StatedDynamicSizesAreCheckedAndSaidToBeStated) {
  std::string K = write("k.cu", R"(#include <cuda_runtime.h>
__global__ void rows(float *y) { extern __shared__ float r[]; r[threadIdx.x] = y[0]; __syncthreads(); y[threadIdx.x] = r[threadIdx.x ^ 1]; }
__global__ void library(float *y) { extern __shared__ float r[]; r[threadIdx.x] = y[0]; __syncthreads(); y[1] = r[2]; }
__global__ void plain(float *y) { y[threadIdx.x] = 0; }
__global__ void other(float *y) { y[threadIdx.x] = 1; }
void run(float *y, size_t n) {
  rows<<<1, 128, n>>>(y);
  rows<<<1, 128, 1024>>>(y);
  plain<<<1, 64, n>>>(y);
  other<<<1, 64, n>>>(y);
}
)");
  // Without a configuration: unknown, and the legend line for plain/other.
  CommandResult R = tilefit({"--arch=sm_80", K, "--"});
  EXPECT_EQ(R.Status, 0) << R.Out << R.Err;
  EXPECT_NE(R.Out.find("2 kernels declare no extern __shared__ array"),
            std::string::npos)
      << R.Out;
  auto Row = [&](const std::string &Name) { return summaryRow(R.Out, Name); };
  EXPECT_NE(Row("rows").find("+ ?"), std::string::npos) << R.Out;
  EXPECT_EQ(Row("plain").find("+ ?"), std::string::npos) << R.Out;
  EXPECT_NE(Row("plain").find("(<="), std::string::npos) << R.Out;

  write(".tilefit.yaml", "DynamicSharedMemory:\n"
                         "  - Kernel: 'rows'\n    Bytes: 50000\n"
                         "  - Kernel: 'lib*'\n    Bytes: 2048\n");
  R = tilefit({"--arch=sm_80", "--format=json", K, "--"});
  EXPECT_EQ(R.Status, 1) << "50000 bytes need the opt-in: " << R.Out;
  nlohmann::json J = json(R);
  std::map<std::string, nlohmann::json> Kernels;
  for (const auto &Kernel : J["kernels"])
    Kernels[Kernel["name"]] = Kernel;
  const auto &Rows = Kernels["rows"]["dynamic_smem"]["launches"];
  ASSERT_EQ(Rows.size(), 2u) << J.dump();
  EXPECT_EQ(Rows[0]["bytes"], 50000);
  EXPECT_EQ(Rows[0]["stated_by"], "configuration");
  EXPECT_EQ(Rows[1]["bytes"], 1024) << "a computed size stays";
  EXPECT_TRUE(Rows[1]["stated_by"].is_null());
  const auto &Lib = Kernels["library"]["dynamic_smem"]["launches"];
  ASSERT_EQ(Lib.size(), 1u) << "a kernel the unit never launches";
  EXPECT_EQ(Lib[0]["bytes"], 2048);
  EXPECT_TRUE(
      Kernels["plain"]["dynamic_smem"]["launches"][0]["bytes"].is_null());
  bool Said = false;
  for (const auto &D : J["diagnostics"])
    Said |= D["check"] == "tilefit-optin" &&
            D["message"].get<std::string>().find(
                "(stated by DynamicSharedMemory in the configuration)") !=
                std::string::npos;
  EXPECT_TRUE(Said) << J["diagnostics"].dump();

  write(".tilefit.yaml", "DynamicSharedMemory:\n  - Kernel: 'rows'\n");
  R = tilefit({"--arch=sm_80", K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.yaml:2:5: a dynamic shared memory size needs "
                       "a Kernel glob and Bytes"),
            std::string::npos)
      << R.Err;
}

TEST_F(CiGate, DumpConfig) {
  write(".tilefit.yaml",
        "Checks: 'tilefit-*'\nBudget: 0.5\nKernelBudgets:\n  "
        "- Kernel: 'g*'\n    Fraction: 0.25\nPrecompileIncludes: ['cub/*']\n");
  std::string K = write("k.cu", BudgetKernel);
  CommandResult R = tilefit({"--dump-config", "--arch=sm_80", K});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_NE(R.Out.find("Checks: 'tilefit-*'"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("Budget: 0.5"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("Architectures: [sm_80]"), std::string::npos)
      << "the command line wins";
  EXPECT_NE(R.Out.find("  - Kernel: 'g*'\n    Fraction: 0.25"),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("PrecompileIncludes: ['cub/*']"), std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find(".tilefit.yaml"), std::string::npos)
      << "says where it came from";
}

TEST_F(CiGate, ConfigurationErrorsNameFileLineAndColumn) {
  std::string K = write("k.cu", BudgetKernel);
  write(".tilefit.yaml", "Checks: '*'\nBudgett: 0.5\n");
  CommandResult R = tilefit({K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.yaml:2:1: unknown key 'Budgett'"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "Budget: lots\n");
  R = tilefit({K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.yaml:1:9: expected a fraction in (0, 1] or "
                       "a percentage in (0%, 100%], got 'lots'"),
            std::string::npos)
      << R.Err;
  // A budget is a fraction or a percentage, as --max-growth takes `5%`: both
  // spellings give the same findings.
  write(".tilefit.yaml", "Budget: 1%\n");
  CommandResult Percent = tilefit({K, "--"});
  write(".tilefit.yaml", "Budget: 0.01\n");
  CommandResult Fraction = tilefit({K, "--"});
  EXPECT_EQ(Percent.Status, Fraction.Status) << Percent.Err;
  EXPECT_EQ(Percent.Out, Fraction.Out);
  EXPECT_EQ(tilefit({"--budget=1%", K, "--"}).Out, Fraction.Out);
  EXPECT_EQ(tilefit({"--budget=150%", K, "--"}).Status, 2);
  write(".tilefit.yaml", "Architectures: sm_90\n");
  R = tilefit({K, "--"});
  EXPECT_NE(R.Err.find(".tilefit.yaml:1:16: expected a list of architectures"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "KernelBudgets:\n  - Kernel: 'x'\n");
  R = tilefit({K, "--"});
  EXPECT_NE(R.Err.find(".tilefit.yaml:2:5: a kernel budget needs a Kernel glob "
                       "and one of Bytes or Fraction"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "PrecompileIncludes: ['cub/*', '[']\n");
  R = tilefit({K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.yaml:1:31: '[' is not a glob"),
            std::string::npos)
      << R.Err;
  write(".tilefit.yaml", "Checks: [unclosed\n");
  R = tilefit({K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.yaml:"), std::string::npos) << R.Err;
  write(".tilefit.json", "{\"Budget\": 0.5");
  llvm::sys::fs::remove(Dir + "/.tilefit.yaml");
  R = tilefit({K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find(".tilefit.json:1:"), std::string::npos) << R.Err;
}

TEST_F(CiGate, SarifValidatesWithMicrosoftsMultitool) {
  std::string Tool =
      sourceDir() + "/.cache/sarif/node_modules/.bin/sarif-multitool";
  if (!llvm::sys::fs::can_execute(Tool))
    GTEST_SKIP() << "the SARIF multitool is not installed (scripts/setup.sh "
                    "installs it with npm)";
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: CMake cannot configure the example";
  CommandResult C =
      runCommand({"cmake", "-S", sourceDir() + "/compile_commands_example",
                  "-B", Dir + "/example", "-DCMAKE_CUDA_COMPILER=nvcc"});
  ASSERT_EQ(C.Status, 0) << C.Err;
  CommandResult R =
      tilefit({"-p", Dir + "/example", "--output=" + Dir + "/report.sarif"});
  EXPECT_EQ(R.Status, 1) << "the example has an error on sm_89\n" << R.Err;
  CommandResult V = runCommand({Tool, "validate", Dir + "/report.sarif"});
  EXPECT_EQ(V.Status, 0) << V.Out << V.Err;
  EXPECT_EQ(V.Out.find(": error "), std::string::npos) << V.Out;
  EXPECT_EQ(V.Out.find(": warning "), std::string::npos) << V.Out;
  // The shape code scanning relies on.
  auto Buf = llvm::MemoryBuffer::getFile(Dir + "/report.sarif");
  nlohmann::json S = nlohmann::json::parse((*Buf)->getBuffer().str());
  const auto &Run = S["runs"][0];
  EXPECT_EQ(S["version"], "2.1.0");
  EXPECT_EQ(Run["tool"]["driver"]["name"], "tilefit");
  EXPECT_GE(Run["tool"]["driver"]["rules"].size(), 8u);
  EXPECT_EQ(Run["originalUriBaseIds"]["SRCROOT"]["uri"],
            "file://" + sourceDir() + "/compile_commands_example/");
  bool SawCapacity = false;
  for (const auto &Res : Run["results"]) {
    EXPECT_TRUE(Res.contains("partialFingerprints"));
    if (Res["ruleId"] == "tilefit-capacity") {
      SawCapacity = true;
      EXPECT_EQ(
          Res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
          "src/dynamic.cu");
      EXPECT_EQ(Res["properties"]["arch"], "sm_89");
      EXPECT_EQ(Res["properties"]["dynamic_smem_bytes"], 114688);
      EXPECT_FALSE(Res["relatedLocations"].empty());
    }
  }
  EXPECT_TRUE(SawCapacity);

  // A unit with errors: its failure is a notification of the invocation, valid
  // SARIF too.
  CommandResult P =
      tilefit({"--arch=sm_90", "--output=" + Dir + "/partial.sarif",
               sourceDir() + "/tests/fixtures/parse_errors/kernel_error.cu",
               "--", "-DINJECT_ERRORS"});
  EXPECT_EQ(P.Status, 2) << P.Err;
  CommandResult PV = runCommand({Tool, "validate", Dir + "/partial.sarif"});
  EXPECT_EQ(PV.Status, 0) << PV.Out << PV.Err;
  EXPECT_EQ(PV.Out.find(": error "), std::string::npos) << PV.Out;
  auto PBuf = llvm::MemoryBuffer::getFile(Dir + "/partial.sarif");
  nlohmann::json PS = nlohmann::json::parse((*PBuf)->getBuffer().str());
  const auto &Inv = PS["runs"][0]["invocations"][0];
  EXPECT_EQ(Inv["executionSuccessful"], false);
  ASSERT_GE(Inv["toolExecutionNotifications"].size(), 2u) << Inv.dump();
  EXPECT_NE(Inv["toolExecutionNotifications"][1]["message"]["text"]
                .get<std::string>()
                .find("kernel_error.cu (kernel_error.cu:13:44: use of "
                      "undeclared identifier 'gain')"),
            std::string::npos)
      << Inv.dump();
}

TEST_F(CiGate, SarifFingerprintsSurviveEditsAboveAFinding) {
  std::string K = write("k.cu", BudgetKernel);
  auto Fingerprint = [&]() {
    tilefit({"--arch=sm_90", "--budget=0.01", "--output=" + Dir + "/r.sarif", K,
             "--"});
    auto Buf = llvm::MemoryBuffer::getFile(Dir + "/r.sarif");
    nlohmann::json S = nlohmann::json::parse((*Buf)->getBuffer().str());
    const auto &Res = S["runs"][0]["results"][0];
    return std::make_pair(
        Res["partialFingerprints"].dump(),
        Res["locations"][0]["physicalLocation"]["region"]["startLine"]
            .get<int>());
  };
  auto [Before, LineBefore] = Fingerprint();
  write("k.cu",
        std::string("// a new comment\n// and another\n") + BudgetKernel);
  auto [After, LineAfter] = Fingerprint();
  EXPECT_EQ(LineAfter, LineBefore + 2);
  EXPECT_EQ(Before, After);
}

TEST_F(CiGate, DiffAndBaselineWithAThreshold) {
  auto Kernel = [](int Floats) {
    return "__global__ void grows(float *o) { __shared__ float t[" +
           std::to_string(Floats) + "]; t[threadIdx.x % " +
           std::to_string(Floats) +
           "] = o[0]; __syncthreads(); o[1] = t[(threadIdx.x + 1) % " +
           std::to_string(Floats) +
           "]; }\n__global__ void stays(float *o) { __shared__ float s[64]; "
           "s[threadIdx.x % 64] = o[0]; __syncthreads(); o[1] = s[(threadIdx.x "
           "+ 1) % 64]; }\n";
  };
  std::string K = write("k.cu", Kernel(1000));
  ASSERT_EQ(tilefit({"--arch=sm_90", "--format=json", "-o", Dir + "/old.json",
                     K, "--"})
                .Status,
            0);
  write("k.cu",
        Kernel(1100) + "__global__ void added(float *o) { o[0] = 1; }\n");
  ASSERT_EQ(tilefit({"--arch=sm_90", "--format=json", "-o", Dir + "/new.json",
                     K, "--"})
                .Status,
            0);

  CommandResult D = tilefit({"diff", Dir + "/old.json", Dir + "/new.json"});
  EXPECT_EQ(D.Status, 0) << "no threshold, no failure\n" << D.Err;
  EXPECT_NE(
      D.Out.find("grown: grows on sm_90: 4000 B -> 4400 B +400 B (+10.0%)"),
      std::string::npos)
      << D.Out;
  EXPECT_NE(D.Out.find("added: added on sm_90"), std::string::npos) << D.Out;
  EXPECT_EQ(D.Out.find("stays"), std::string::npos)
      << "unchanged kernels are counted, not listed";
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=20%"})
                .Status,
            0);
  EXPECT_EQ(
      tilefit({"diff", Dir + "/old.json", Dir + "/new.json", "--max-growth=5%"})
          .Status,
      1);
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=399"})
                .Status,
            1);
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=400"})
                .Status,
            0);
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=lots"})
                .Status,
            2);
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json"}).Status, 2);
  write("bad.json", "{\"schema\": \"something-else\"}");
  CommandResult Bad = tilefit({"diff", Dir + "/old.json", Dir + "/bad.json"});
  EXPECT_EQ(Bad.Status, 2);
  EXPECT_NE(Bad.Err.find("bad.json: schema"), std::string::npos) << Bad.Err;

  CommandResult Md = tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                              "--format=markdown", "--max-growth=5%"});
  EXPECT_NE(Md.Out.find("| :x: grown | `grows` | sm_90 | 4000 B | 4400 B | "
                        "+400 B (+10.0%) |"),
            std::string::npos)
      << Md.Out;
  CommandResult Js =
      tilefit({"diff", Dir + "/old.json", Dir + "/new.json", "--format=json"});
  nlohmann::json J = json(Js);
  EXPECT_EQ(J["schema"], "tilefit-diff/1");

  // --baseline in a run: the report, then the changes; the threshold fails the
  // run.
  CommandResult B = tilefit({"--arch=sm_90", "--baseline=" + Dir + "/old.json",
                             "--max-growth=5%", K, "--"});
  EXPECT_EQ(B.Status, 1);
  EXPECT_NE(B.Out.find("grown (over the threshold): grows on sm_90"),
            std::string::npos)
      << B.Out;
}

// The usual tuning change, gemm_tiled<3> to gemm_tiled<5>: one kernel whose
// arguments changed, with its growth, that --max-growth catches; two changed at
// once stay added and removed.
TEST_F(CiGate, DiffAcrossTemplateArguments) {
  auto Source = [](int Stages, std::vector<int> Pair) {
    std::string S =
        "template <int STAGES> __global__ void gemm_tiled(float *o) {\n"
        "  __shared__ float t[STAGES][256];\n"
        "  t[threadIdx.x % STAGES][threadIdx.x % 256] = o[0];\n"
        "  __syncthreads();\n"
        "  o[1] = t[(threadIdx.x + 1) % STAGES][threadIdx.x % 256];\n"
        "}\n"
        "template __global__ void gemm_tiled<" +
        std::to_string(Stages) +
        ">(float *);\n"
        "template <int N> __global__ void pair(float *o) { o[0] = N; }\n";
    for (int N : Pair)
      S += "template __global__ void pair<" + std::to_string(N) +
           ">(float *);\n";
    return S;
  };
  std::string K = write("k.cu", Source(3, {1, 2}));
  ASSERT_EQ(tilefit({"--arch=sm_90", "--format=json", "-o", Dir + "/old.json",
                     K, "--"})
                .Status,
            0);
  write("k.cu", Source(5, {3, 4}));
  ASSERT_EQ(tilefit({"--arch=sm_90", "--format=json", "-o", Dir + "/new.json",
                     K, "--"})
                .Status,
            0);
  CommandResult D = tilefit({"diff", Dir + "/old.json", Dir + "/new.json"});
  EXPECT_EQ(D.Status, 0) << D.Err;
  EXPECT_NE(D.Out.find("grown (arguments changed): gemm_tiled<3> -> "
                       "gemm_tiled<5> on sm_90: 3 KiB "
                       "-> 5 KiB +2 KiB (+66.7%)"),
            std::string::npos)
      << D.Out;
  EXPECT_EQ(D.Out.find("removed: gemm_tiled<3>"), std::string::npos) << D.Out;
  for (const char *Line : {"added: pair<3>", "added: pair<4>",
                           "removed: pair<1>", "removed: pair<2>"})
    EXPECT_NE(D.Out.find(Line), std::string::npos) << Line << "\n" << D.Out;
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=1KiB"})
                .Status,
            1);
  EXPECT_EQ(tilefit({"diff", Dir + "/old.json", Dir + "/new.json",
                     "--max-growth=2KiB"})
                .Status,
            0);
  nlohmann::json J = json(
      tilefit({"diff", Dir + "/old.json", Dir + "/new.json", "--format=json"}));
  bool Found = false;
  for (const auto &E : J["kernels"])
    if (E["kernel"] == "gemm_tiled<5>") {
      Found = true;
      EXPECT_EQ(E["old_kernel"], "gemm_tiled<3>");
      EXPECT_EQ(E["growth"], 2048);
    }
  EXPECT_TRUE(Found) << J.dump(1);
}

// A run over several units keeps each finished unit's part of the report
// packed (compressed JSON) until the report is assembled; a run of one unit
// keeps it as it is. Both give the same report: the units' parts, merged, are
// byte for byte the report of one run over all of them, with parse errors,
// rewritten nvcc constructs, findings with notes, launches and opt-ins.
TEST_F(CiGate, PackedPartsGiveTheSameReportAsUnitsAnalysedAlone) {
  std::vector<std::string> Files;
  for (const char *F :
       {"checks/capacity.cu", "launch/optin.cu", "input/parse_error.cu",
        "nvcc_compat/shared_constructor.cu", "layout/namespace_scope.cu"})
    Files.push_back(fixturesDir() + "/" + F);
  auto Run = [&](const std::vector<std::string> &Units,
                 const std::string &Out) {
    std::vector<std::string> Args = {
        "--arch=sm_90", "--format=json",
        "--no-cache",   "--source-root=" + fixturesDir(),
        "-o",           Out};
    Args.insert(Args.end(), Units.begin(), Units.end());
    Args.insert(Args.end(), {"--", "-std=c++17"});
    return tilefit(Args);
  };
  EXPECT_EQ(Run(Files, Dir + "/whole.json").Status, 2)
      << "parse_error.cu fails";
  std::vector<std::string> Merge = {"merge", "--format=json"};
  for (size_t I = 0; I < Files.size(); ++I) {
    Merge.push_back(Dir + "/alone" + std::to_string(I) + ".json");
    Run({Files[I]}, Merge.back());
  }
  auto Whole = llvm::MemoryBuffer::getFile(Dir + "/whole.json");
  ASSERT_TRUE(static_cast<bool>(Whole));
  const std::string Text = (*Whole)->getBuffer().str();
  for (const char *Seen :
       {"\"rule\": \"shared-constructor\"", "\"status\": \"partial\"",
        "\"check\": \"tilefit-optin\"", "\"qualified_name\": \"global_tag\"",
        "cudaFuncAttributeMaxDynamicSharedMemorySize"})
    EXPECT_NE(Text.find(Seen), std::string::npos) << Seen;
  EXPECT_EQ(tilefit(Merge).Out, Text);
}

TEST_F(CiGate, ShardsMergeIntoTheSameReportAsOneRun) {
  std::vector<std::string> Files;
  for (int I = 0; I < 5; ++I)
    Files.push_back(write("u" + std::to_string(I) + ".cu",
                          "__global__ void k" + std::to_string(I) +
                              "(float *o) { __shared__ float t[" +
                              std::to_string(64 * (I + 1)) +
                              "]; t[threadIdx.x % 64] = o[0]; __syncthreads(); "
                              "o[1] = t[threadIdx.x % 7]; }\n"));
  write("bad.cu", "__global__ void broken() { undeclared(); }\n");
  Files.push_back(Dir + "/bad.cu");
  auto Run = [&](std::vector<std::string> Extra) {
    std::vector<std::string> Args = {"--arch=sm_80,sm_90", "--format=json"};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Args.insert(Args.end(), Files.begin(), Files.end());
    Args.push_back("--");
    return tilefit(Args);
  };
  CommandResult Whole = Run({"-o", Dir + "/whole.json"});
  EXPECT_EQ(Whole.Status, 2) << "bad.cu fails to parse";
  std::vector<std::string> Parts = {"merge"};
  for (int K = 1; K <= 3; ++K) {
    std::string Out = Dir + "/part" + std::to_string(K) + ".json";
    Run({"--shard=" + std::to_string(K) + "/3", "-o", Out});
    Parts.push_back(Out);
  }
  for (const char *Format : {"json", "text", "sarif", "markdown"}) {
    std::vector<std::string> Args = Parts;
    Args.push_back(std::string("--format=") + Format);
    CommandResult Merged = tilefit(Args);
    EXPECT_EQ(Merged.Status, 2)
        << "the merged report still has the failed unit";
    std::vector<std::string> Direct = {"merge", Dir + "/whole.json",
                                       std::string("--format=") + Format};
    EXPECT_EQ(Merged.Out, tilefit(Direct).Out) << Format;
  }
  auto WholeJson = llvm::MemoryBuffer::getFile(Dir + "/whole.json");
  std::vector<std::string> Args = Parts;
  Args.push_back("--format=json");
  EXPECT_EQ(tilefit(Args).Out, (*WholeJson)->getBuffer().str())
      << "byte for byte";
  EXPECT_EQ(tilefit({"--shard=4/3", Files[0], "--"}).Status, 2);
}

// The launcher shows the findings where a build's output is read, as compiler
// diagnostics on stderr, and fails the compile only where
// TILEFIT_LAUNCH_FAIL_ON asks; the object is then removed, so that the next
// build compiles the unit again. (/bin/true stands for the compiler.)
TEST_F(CiGate, LauncherShowsFindingsAndFailsWhereAsked) {
  const std::string Launch =
      llvm::sys::path::parent_path(binary()).str() + "/tilefit-launch";
  std::string K = write("big.cu", "__global__ void big(float *o) {\n"
                                  "  __shared__ float t[16384];\n"
                                  "  t[threadIdx.x] = o[0];\n"
                                  "  o[threadIdx.x] = t[16383 - threadIdx.x];\n"
                                  "}\n");
  const std::string Obj = Dir + "/big.o";
  const std::vector<std::string> Compile = {
      Launch, "/bin/true", "-c", K, "-o", Obj, "--cuda-gpu-arch=sm_80"};
  write("big.o", "object");
  CommandResult R = runCommand(Compile, Dir);
  EXPECT_EQ(R.Status, 0) << "no failure unless asked\n" << R.Err;
  EXPECT_NE(R.Err.find(K + ":1:17: error: kernel 'big' uses 65536 bytes"),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("[tilefit-static-limit]"), std::string::npos) << R.Err;
  EXPECT_TRUE(llvm::sys::fs::exists(Obj));

  RunOptions Opts;
  Opts.Cwd = Dir;
  Opts.Env = std::vector<std::string>{"TILEFIT_LAUNCH_FAIL_ON=error"};
  for (char **E = environ; *E; ++E)
    Opts.Env->push_back(*E);
  R = runCommand(Compile, Opts);
  EXPECT_EQ(R.Status, 1) << R.Err;
  EXPECT_NE(R.Err.find("the compile fails"), std::string::npos) << R.Err;
  EXPECT_FALSE(llvm::sys::fs::exists(Obj)) << "removed, to be built again";
}

TEST_F(CiGate, LauncherBuildOfTheExampleProject) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH";
  std::string Launch =
      llvm::sys::path::parent_path(binary()).str() + "/tilefit-launch";
  CommandResult C =
      runCommand({"cmake", "-S", sourceDir() + "/compile_commands_example",
                  "-B", Dir + "/ex", "-DCMAKE_CUDA_COMPILER=nvcc",
                  "-DCMAKE_CUDA_COMPILER_LAUNCHER=" + Launch});
  ASSERT_EQ(C.Status, 0) << C.Out << C.Err;
  CommandResult B = runCommand({"cmake", "--build", Dir + "/ex", "-j2"});
  ASSERT_EQ(B.Status, 0) << "the launcher runs the compiler unchanged\n"
                         << B.Out << B.Err;
  EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/ex/example"))
      << "the project built and linked";
  std::vector<std::string> Merge = {"merge", "--format=json"};
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir + "/ex", EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".tilefit.json"))
      Merge.push_back(It->path());
  ASSERT_EQ(Merge.size(), 2u + 5u) << "one report per CUDA source";
  CommandResult Merged = tilefit(Merge);
  CommandResult Direct = tilefit({"-p", Dir + "/ex", "--format=json"});
  EXPECT_EQ(Merged.Status, 1);
  // How many templates the body slicer sliced is what that parse did: it
  // slices a template as the parse first instantiates it, and where something
  // precompiled already holds an instantiation the parse does not make it;
  // the launcher's parses (one unit each) and the direct run's do not
  // precompile alike. Every other field is the same.
  auto WithoutSlicingCounts = [](const std::string &Out) {
    nlohmann::json J = nlohmann::json::parse(Out);
    for (nlohmann::json &U : J["translation_units"]) {
      U["body_slicing"].erase("functions");
      U["body_slicing"].erase("statements");
    }
    return J.dump(1);
  };
  EXPECT_EQ(WithoutSlicingCounts(Merged.Out), WithoutSlicingCounts(Direct.Out))
      << "the launcher's reports merge into the same report";
}

TEST_F(CiGate, PreCommitHook) {
  if (!llvm::sys::findProgramByName("pre-commit") ||
      !llvm::sys::findProgramByName("git"))
    GTEST_SKIP() << "pre-commit and git are needed (scripts/setup.sh installs "
                    "pre-commit)";
  if (!llvm::sys::fs::exists(sourceDir() + "/.git"))
    GTEST_SKIP() << "the source tree is not a git checkout";
  std::string Repo = Dir + "/repo";
  llvm::sys::fs::create_directories(Repo);
  write("repo/ok.cu", "__global__ void fine(float *o) { o[0] = 1; }\n");
  write("repo/big.cu",
        "__global__ void big(float *o) { __shared__ float t[64][200]; "
        "t[threadIdx.x % 64][threadIdx.y % 200] = o[0]; __syncthreads(); o[1] "
        "= t[threadIdx.y % 64][threadIdx.x % 200]; }\n");
  for (auto Cmd : std::vector<std::vector<std::string>>{
           {"git", "init", "-q"},
           {"git", "config", "user.email", "t@example.com"},
           {"git", "config", "user.name", "t"},
           {"git", "add", "ok.cu", "big.cu"}})
    ASSERT_EQ(runCommand(Cmd, Repo).Status, 0);
  // pre-commit finds `tilefit` on PATH (language: system).
  std::string Path =
      llvm::sys::path::parent_path(binary()).str() + ":" + getenv("PATH");
  auto PreCommit = [&](const std::string &File) {
    return runCommand({"env", "PATH=" + Path, "HOME=" + Dir,
                       "PRE_COMMIT_HOME=" + Dir + "/cache", "pre-commit",
                       "try-repo", sourceDir(), "tilefit", "--files", File},
                      Repo);
  };
  CommandResult Ok = PreCommit("ok.cu");
  EXPECT_EQ(Ok.Status, 0) << Ok.Out << Ok.Err;
  CommandResult Big = PreCommit("big.cu");
  EXPECT_EQ(Big.Status, 1) << Big.Out << Big.Err;
  EXPECT_NE(Big.Out.find("tilefit-static-limit"), std::string::npos) << Big.Out;
}

TEST_F(CiGate, ChecksDocumentationIsGeneratedFromTheTable) {
  CommandResult R = tilefit({"--list-checks", "--format=markdown"});
  ASSERT_EQ(R.Status, 0);
  auto Doc = llvm::MemoryBuffer::getFile(sourceDir() + "/docs/checks.md");
  ASSERT_TRUE(static_cast<bool>(Doc));
  EXPECT_EQ((*Doc)->getBuffer().str(), R.Out)
      << "docs/checks.md is stale: build/bin/tilefit --list-checks "
         "--format=markdown > docs/checks.md";
}

} // namespace
} // namespace test
} // namespace tilefit
