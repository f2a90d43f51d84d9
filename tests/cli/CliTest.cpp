//===- CliTest.cpp - The built binary: exit codes, formats, bad input -----===//
#include "../support/TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <sys/stat.h>

namespace tilefit {
namespace test {
namespace {

class CliTest : public TempDirTest {
protected:
  CommandResult tilefit(std::vector<std::string> Args) {
    Args.insert(Args.begin(), binary());
    return runCommand(Args, Dir);
  }

  static nlohmann::json json(const CommandResult &R) {
    try {
      return nlohmann::json::parse(R.Out);
    } catch (const std::exception &E) {
      ADD_FAILURE() << "not JSON: " << E.what() << "\n" << R.Out << R.Err;
      return {};
    }
  }

};

const char GoodKernel[] = R"(
__global__ void good(float *o) {
  __shared__ float s[64];
  s[threadIdx.x % 64] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
)";

TEST_F(CliTest, VersionAndHelp) {
  CommandResult V = tilefit({"--version"});
  EXPECT_EQ(V.Status, 0);
  EXPECT_NE(V.Out.find("tilefit version"), std::string::npos) << V.Out;
  CommandResult H = tilefit({"--help"});
  EXPECT_EQ(H.Status, 0);
  for (const char *Opt : {"-p", "--arch", "--format", "--capacity-db", "--cuda-path", "--budget"})
    EXPECT_NE(H.Out.find(Opt), std::string::npos) << Opt;
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(tilefit({}).Status, 2);
  std::string K = write("k.cu", GoodKernel);
  CommandResult R = tilefit({"--arch=sm_999", K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("unknown architecture"), std::string::npos) << R.Err;
  R = tilefit({"--arch=volta", K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("not an architecture name"), std::string::npos) << R.Err;
  EXPECT_EQ(tilefit({"--format=xml", K}).Status, 2);
  EXPECT_EQ(tilefit({"--budget=1.5", K}).Status, 2);
  EXPECT_EQ(tilefit({"--no-such-option", K}).Status, 2);
  R = tilefit({"--cuda-path=/nonexistent", K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("not a CUDA toolkit"), std::string::npos) << R.Err;
}

TEST_F(CliTest, JsonForAKernelWithFlagsAfterDashDash) {
  std::string K = write("k.cu", GoodKernel);
  CommandResult R = tilefit({"--format=json", "--arch=sm_80,sm_90", K, "--", "-std=c++17"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  EXPECT_EQ(J["schema"], "tilefit-report/1");
  ASSERT_EQ(J["kernels"].size(), 2u);
  for (const auto &Kernel : J["kernels"]) {
    EXPECT_EQ(Kernel["name"], "good");
    EXPECT_EQ(Kernel["mangled"], "_Z4goodPf");
    EXPECT_EQ(Kernel["static_smem_bytes"], 256);
    EXPECT_EQ(Kernel["line"], 2);
  }
  EXPECT_EQ(J["kernels"][0]["arch"], "sm_80");
  EXPECT_EQ(J["kernels"][1]["arch"], "sm_90");
}

TEST_F(CliTest, TextEndsWithSummaryTable) {
  std::string K = write("k.cu", GoodKernel);
  CommandResult R = tilefit({"--arch=sm_90", K});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(std::regex_search(R.Out, std::regex(R"(\ngood +sm_90 +256 B +- +227 KiB +0\.1%\n)")))
      << R.Out;
}

TEST_F(CliTest, StaticLimitIsAnErrorExitOne) {
  std::string K = write("big.cu", R"(
__global__ void big(float *o) {
  __shared__ float tile[64][200];
  tile[threadIdx.x % 64][threadIdx.y % 200] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = tile[(threadIdx.x + 1) % 64][threadIdx.y % 200];
}
)");
  CommandResult R = tilefit({"--arch=sm_90", K});
  EXPECT_EQ(R.Status, 1) << R.Out << R.Err;
  EXPECT_NE(R.Out.find("big.cu:2:17: error: kernel 'big' uses 51200 bytes"), std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("[tilefit-static-limit]"), std::string::npos);
  EXPECT_NE(R.Out.find("big.cu:3:20: note: 'tile' takes 51200 bytes"), std::string::npos) << R.Out;
}

TEST_F(CliTest, BadUnitsDoNotStopGoodOnes) {
  std::string Good = write("good.cu", GoodKernel);
  std::string Broken = write("broken.cu", "__global__ void k() { int x = ; }\n");
  std::string Host = write("host.cpp", "int main() { return 0; }\n");
  CommandResult R = tilefit({"--format=json", "--arch=sm_90", Good, Broken, Host,
                             Dir + "/missing.cu", "--"});
  EXPECT_EQ(R.Status, 2);
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u) << R.Out;
  EXPECT_EQ(J["kernels"][0]["name"], "good");
  std::map<std::string, nlohmann::json> Units;
  for (const auto &U : J["translation_units"])
    Units[llvm::sys::path::filename(U["file"].get<std::string>()).str()] = U;
  EXPECT_EQ(Units["good.cu"]["status"], "ok");
  EXPECT_EQ(Units["broken.cu"]["status"], "error");
  EXPECT_EQ(Units["broken.cu"]["messages"][0]["line"], 1);
  EXPECT_EQ(Units["broken.cu"]["messages"][0]["check"], "clang-diagnostic-error");
  EXPECT_EQ(Units["host.cpp"]["status"], "error");
  EXPECT_NE(Units["host.cpp"]["messages"][0]["message"].get<std::string>().find("not a CUDA source"),
            std::string::npos);
  EXPECT_EQ(Units["missing.cu"]["status"], "error");
  EXPECT_NE(Units["missing.cu"]["messages"][0]["message"].get<std::string>().find("cannot read"),
            std::string::npos);
}

TEST_F(CliTest, UnreadableAndDirectoryInputs) {
  std::string K = write("locked.cu", GoodKernel);
  ::chmod(K.c_str(), 0);
  llvm::sys::fs::create_directories(Dir + "/dir.cu");
  CommandResult R = tilefit({"--arch=sm_90", K, Dir + "/dir.cu", "--"});
  ::chmod(K.c_str(), 0644);
  EXPECT_EQ(R.Status, 2);
  if (::geteuid() != 0) // root reads anything
    EXPECT_NE(R.Out.find("locked.cu"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("is not a regular file"), std::string::npos) << R.Out;
}

TEST_F(CliTest, MalformedCapacityDatabaseNamesFileAndKey) {
  std::string K = write("k.cu", GoodKernel);
  std::string Db = write("db.json", R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": "x"}}}})");
  CommandResult R = tilefit({"--capacity-db=" + Db, K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("db.json: architectures.sm_90.shared_memory.per_sm"), std::string::npos)
      << R.Err;
}

TEST_F(CliTest, CapacityDatabaseExtendsTheBuiltinOne) {
  std::string K = write("k.cu", GoodKernel);
  std::string Db = write("db.json", R"({"architectures": {"sm_90": {"shared_memory": {"block_default_max": 100, "block_optin_max": 200}}}})");
  CommandResult R = tilefit({"--capacity-db=" + Db, "--arch=sm_90", K});
  EXPECT_EQ(R.Status, 1) << R.Out << R.Err;
  EXPECT_NE(R.Out.find("[tilefit-capacity]"), std::string::npos) << R.Out;
}

TEST_F(CliTest, CompilationDatabaseWithPluginFlagsNeverLoadsThem) {
  std::string K = write("k.cu", GoodKernel);
  write("build/compile_commands.json",
        "[{\"directory\": \"" + Dir + "\", \"arguments\": [\"clang++\", \"-Xclang\", \"-load\", "
        "\"-Xclang\", \"/nonexistent/evil.so\", \"-fplugin=/nonexistent/evil2.so\", "
        "\"--cuda-gpu-arch=sm_80\", \"-c\", \"" + K + "\"], \"file\": \"" + K + "\"}]");
  CommandResult R = tilefit({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Out << R.Err;
  EXPECT_NE(R.Err.find("ignored flags that would load code"), std::string::npos) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["arch"], "sm_80") << "the architecture comes from the command";
}

TEST_F(CliTest, SourceMissingFromDatabase) {
  std::string K = write("k.cu", GoodKernel);
  write("build/compile_commands.json", "[]");
  CommandResult R = tilefit({"-p", Dir + "/build", K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Out.find("no compile command for"), std::string::npos) << R.Out;
}

TEST_F(CliTest, BuiltinPreludeWithoutToolkit) {
  std::string K = write("k.cu", GoodKernel);
  CommandResult R = tilefit({"--no-cuda-toolkit", "--format=json", "--arch=sm_90", K, "--"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_NE(R.Err.find("built-in CUDA prelude"), std::string::npos) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["static_smem_bytes"], 256);
}

TEST_F(CliTest, TemplateKernelWithTwoTileSizesMatchesPtxas) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH";
  std::string K = write("k.cu", R"(
template <int TILE>
__global__ void tiled(const float *in, float *out) {
  __shared__ float tile[TILE][TILE + 1];
  __shared__ char flags[TILE / 8 + 1];
  tile[threadIdx.y % TILE][threadIdx.x % TILE] = in[threadIdx.x];
  flags[threadIdx.x % (TILE / 8 + 1)] = 1;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % TILE][(threadIdx.y + 1) % TILE] + flags[threadIdx.y % 2];
}
template __global__ void tiled<16>(const float *, float *);
template __global__ void tiled<32>(const float *, float *);
)");
  // No --arch and no flags: nvcc 13's default architecture, sm_75, on both sides.
  CommandResult R = tilefit({"--format=json", K});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  PtxasFigures P = ptxasFigures(K, {}, {"sm_75"});
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  ASSERT_EQ(J["kernels"].size(), 2u);
  ASSERT_EQ(P.Figures["sm_75"].size(), 2u);
  for (const auto &Kernel : J["kernels"]) {
    EXPECT_EQ(Kernel["arch"], "sm_75");
    std::string Mangled = Kernel["mangled"];
    ASSERT_TRUE(P.Figures["sm_75"].count(Mangled)) << Mangled;
    EXPECT_EQ(Kernel["static_smem_bytes"].get<uint64_t>(), P.Figures["sm_75"][Mangled]) << Mangled;
  }
}

TEST_F(CliTest, ExampleProject) {
  std::string Example = sourceDir() + "/compile_commands_example";
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: CMake cannot configure the example";
  CommandResult C = runCommand({"cmake", "-S", Example, "-B", Dir + "/example",
                                "-DCMAKE_CUDA_COMPILER=nvcc"});
  ASSERT_EQ(C.Status, 0) << C.Out << C.Err;
  CommandResult R = tilefit({"-p", Dir + "/example", "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Out << R.Err;
  nlohmann::json J = json(R);
  std::set<std::string> Files, Archs;
  for (const auto &U : J["translation_units"]) {
    EXPECT_EQ(U["status"], "ok") << U.dump();
    Files.insert(llvm::sys::path::filename(U["file"].get<std::string>()).str());
    Archs.insert(U["arch"].get<std::string>());
  }
  EXPECT_EQ(Files, (std::set<std::string>{"reduce.cu", "stencil.cu", "transpose.cu"}))
      << "main.cpp is host code and is skipped";
  EXPECT_EQ(Archs, (std::set<std::string>{"sm_80", "sm_90"}));
  std::map<std::string, uint64_t> Stencil;
  for (const auto &K : J["kernels"])
    if (K["name"] == "stencil")
      Stencil[K["arch"]] = K["static_smem_bytes"];
  // 256 (sm_80) or 512 (sm_90) floats plus the halo, plus weight()'s 9 floats.
  EXPECT_EQ(Stencil["sm_80"], (256 + 8 + 9) * 4u);
  EXPECT_EQ(Stencil["sm_90"], (512 + 8 + 9) * 4u);
}

} // namespace
} // namespace test
} // namespace tilefit
