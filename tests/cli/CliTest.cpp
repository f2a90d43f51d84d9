//===- CliTest.cpp - The built binary: exit codes, formats, bad input -----===//
#include "CliFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <sys/stat.h>

namespace tilefit {
namespace test {
namespace {

TEST_F(CliTest, VersionAndHelp) {
  CommandResult V = tilefit({"--version"});
  EXPECT_EQ(V.Status, 0);
  EXPECT_NE(V.Out.find("tilefit version"), std::string::npos) << V.Out;
  CommandResult H = tilefit({"--help"});
  EXPECT_EQ(H.Status, 0);
  for (const char *Opt :
       {"-p", "--arch", "--format", "--capacity-db", "--cuda-path", "--budget"})
    EXPECT_NE(H.Out.find(Opt), std::string::npos) << Opt;
}

// Each command's --help is its own: the launcher's is not a compiler named
// --help (exit 127), the language server's not the analysis's.
TEST_F(CliTest, EachCommandHasItsOwnHelp) {
  const std::string Launch =
      llvm::sys::path::parent_path(binary()).str() + "/tilefit-launch";
  CommandResult L = runCommand({Launch, "--help"});
  EXPECT_EQ(L.Status, 0) << L.Err;
  EXPECT_NE(L.Out.find("USAGE: tilefit-launch <compiler>"), std::string::npos)
      << L.Out;
  L = runCommand({Launch, "--version"});
  EXPECT_EQ(L.Status, 0) << L.Err;
  EXPECT_EQ(L.Out.rfind("tilefit-launch ", 0), 0u) << L.Out;

  CommandResult S = tilefit({"lsp", "--help"});
  EXPECT_EQ(S.Status, 0) << S.Err;
  EXPECT_EQ(S.Out.rfind("OVERVIEW: tilefit lsp:", 0), 0u)
      << S.Out.substr(0, 300);
  for (const char *Opt : {"--compile-commands-dir", "--lsp-debounce-ms",
                          "--lsp-preambles", "--config-file"})
    EXPECT_NE(S.Out.find(Opt), std::string::npos) << Opt << "\n" << S.Out;
  EXPECT_EQ(S.Out.find("--shard"), std::string::npos)
      << "the analysis's own options are not the server's";
}

// A unit analysed for the default architecture says so once, with how to
// choose; one whose architecture is given does not.
TEST_F(CliTest, TheDefaultArchitectureIsSaidOnce) {
  std::string K = write("k.cu", GoodKernel);
  std::string K2 = write("k2.cu", GoodKernel);
  CommandResult R = tilefit({K, K2, "--"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  const std::string Note =
      "tilefit: note: no architecture given for 2 units (by its command, "
      "--arch or the configuration's Architectures): analysed for sm_75";
  EXPECT_NE(R.Err.find(Note), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("no architecture given", R.Err.find(Note) + Note.size()),
            std::string::npos)
      << "once per run\n"
      << R.Err;
  EXPECT_NE(R.Err.find("choose with --arch="), std::string::npos) << R.Err;
  for (std::vector<std::string> Given :
       {std::vector<std::string>{"--arch=sm_80", K, "--"},
        std::vector<std::string>{K, "--", "--cuda-gpu-arch=sm_80"}}) {
    R = tilefit(Given);
    EXPECT_EQ(R.Err.find("no architecture given"), std::string::npos) << R.Err;
  }
}

// An output that cannot be written says why.
TEST_F(CliTest, AnOutputThatCannotBeWrittenSaysWhy) {
  std::string K = write("k.cu", GoodKernel);
  const std::string Out = Dir + "/no/such/folder/x.json";
  CommandResult R = tilefit({"--arch=sm_80", "-o", Out, K, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("--output=" + Out +
                       ": cannot write: No such file or directory"),
            std::string::npos)
      << R.Err;
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
  CommandResult R =
      tilefit({"--format=json", "--arch=sm_80,sm_90", K, "--", "-std=c++17"});
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

// Each unit says in JSON what body slicing did to it: templates sliced, or
// why nothing was (a constructor that reaches shared memory, and through what),
// and nothing at all with --no-body-slicing.
TEST_F(CliTest, JsonSaysWhatBodySlicingDidToEachUnit) {
  const std::string Sliced = write("sliced.cu", R"(
__device__ void fill(float *s, int i) { s[i % 64] = i; }
template <int N> __global__ void k(float *out) {
  __shared__ float s[64];
  float unused[N];
  unused[0] = out[0];
  fill(s, threadIdx.x);
  out[threadIdx.x] = s[threadIdx.x % 64] + unused[0];
}
template __global__ void k<3>(float *);
)");
  const std::string Whole = write("whole.cu", R"(
__device__ float stage(int i) { __shared__ float s[64]; s[i % 64] = i; return s[(i + 1) % 64]; }
struct Tile { __device__ Tile(int i) { v = stage(i); } float v; };
template <class T> __device__ float use(T t) { return t.v; }
template <int N> __global__ void k2(float *out) { out[threadIdx.x] = use<Tile>(N); }
template __global__ void k2<3>(float *);
)");
  CommandResult R = tilefit({"--format=json", "--no-cache", "--arch=sm_80",
                             Sliced, Whole, "--", "-std=c++17"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["translation_units"].size(), 2u);
  for (const auto &U : J["translation_units"]) {
    const auto &S = U["body_slicing"];
    EXPECT_EQ(S["enabled"], true) << S;
    if (U["file"].get<std::string>().find("whole.cu") != std::string::npos) {
      EXPECT_EQ(S["functions"], 0) << S;
      EXPECT_EQ(S["fallback_kind"]["kind"], "slice-unnamed-call") << S;
      EXPECT_EQ(S["fallback_kind"]["args"][1], "through stage") << S;
    } else {
      EXPECT_GE(S["functions"].get<unsigned>(), 1u) << S;
      EXPECT_TRUE(S["fallback"].is_null()) << S;
    }
  }
  R = tilefit({"--format=json", "--no-cache", "--no-body-slicing",
               "--arch=sm_80", Sliced, "--", "-std=c++17"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(json(R)["translation_units"][0]["body_slicing"]["enabled"], false);
}

// A note that says what would fit carries the edit in JSON where the literal
// that decides the extent is known (here a macro's body), and none where the
// name sizes another extent too (changing it would change both).
TEST_F(CliTest, WhatWouldFitNotesCarryTheirEditInJson) {
  const std::string K = write("k.cu", R"(#define STAGES 5
#define ROWS 64
__global__ void staged(const float *in, float *out) {
  __shared__ float a[STAGES][ROWS][ROWS];
  a[threadIdx.x % STAGES][threadIdx.x % ROWS][0] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = a[(threadIdx.x + 1) % STAGES][threadIdx.x % ROWS][1];
}
)");
  // Its column reads are bank conflicts too; this test is about the limit.
  CommandResult R = tilefit({"--format=json", "--no-cache", "--arch=sm_90",
                             "--checks=*,-tilefit-bank-conflict", K});
  EXPECT_EQ(R.Status, 1) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["diagnostics"].size(), 1u) << J.dump();
  std::vector<std::string> Fixes;
  bool RowsNote = false;
  for (const auto &N : J["diagnostics"][0]["notes"]) {
    const std::string M = N["message"];
    RowsNote |= M.find("with ROWS") != std::string::npos;
    if (M.find("with ROWS") != std::string::npos) {
      EXPECT_FALSE(N.contains("fix")) << N.dump();
    }
    if (!N.contains("fix"))
      continue;
    Fixes.push_back(N["fix"]["title"]);
    ASSERT_EQ(N["fix"]["edits"].size(), 1u) << N.dump();
    const auto &E = N["fix"]["edits"][0];
    EXPECT_EQ(E["line"], 1) << N.dump();
    EXPECT_EQ(E["column"], 16) << N.dump();
    EXPECT_EQ(E["length"], 1) << N.dump();
    EXPECT_EQ(E["text"], "3") << N.dump();
  }
  EXPECT_EQ(Fixes, std::vector<std::string>{"set STAGES to 3"}) << J.dump();
  EXPECT_TRUE(RowsNote) << J.dump();
}

// The `extern __shared__` edit is offered only where it is mechanical: for a
// kernel launched plainly in the unit, not for one launched through a macro,
// launched nowhere here, or whose tile shares its statement with another
// variable. Where offered, the note carries every edit: the declaration, and
// the opt-in and the bytes of the launch.
TEST_F(CliTest, ExternSharedEditsOnlyWhereMechanical) {
  const std::string K = write("k.cu", R"(#define LAUNCH(k) k<<<1, 256>>>(p)
#define BODY(t) t[threadIdx.x][0] = p[threadIdx.x]; __syncthreads(); p[threadIdx.x] = t[0][threadIdx.x]
__global__ void plain(float *p) {
  __shared__ float tile[128][128];
  BODY(tile);
}
__global__ void macro_launched(float *p) {
  __shared__ float tile[128][128];
  BODY(tile);
}
__global__ void never_launched(float *p) {
  __shared__ float tile[128][128];
  BODY(tile);
}
__global__ void two_in_one(float *p) {
  __shared__ float a[128][128], b[4];
  BODY(a); b[threadIdx.x % 4] = 1;
}
void run(float *p) {
  plain<<<1, 256>>>(p);
  LAUNCH(macro_launched);
  two_in_one<<<1, 256>>>(p);
}
)");
  CommandResult R = tilefit({"--format=json", "--no-cache", "--arch=sm_90", K});
  EXPECT_EQ(R.Status, 1) << R.Err;
  nlohmann::json J = json(R);
  std::map<std::string, nlohmann::json> Fixes;
  for (const auto &D : J["diagnostics"]) {
    if (D["check"] != "tilefit-static-limit")
      continue;
    Fixes[D["kernel"]] = nullptr;
    for (const auto &N : D["notes"])
      if (N.contains("fix"))
        Fixes[D["kernel"]] = N["fix"];
  }
  ASSERT_EQ(Fixes.size(), 4u) << J.dump();
  EXPECT_TRUE(Fixes["macro_launched"].is_null()) << Fixes["macro_launched"];
  EXPECT_TRUE(Fixes["never_launched"].is_null()) << Fixes["never_launched"];
  EXPECT_TRUE(Fixes["two_in_one"].is_null()) << Fixes["two_in_one"];
  const nlohmann::json &F = Fixes["plain"];
  ASSERT_TRUE(F.is_object()) << J.dump();
  EXPECT_EQ(F["title"], "make 'tile' extern __shared__ and request its 65536 "
                        "bytes at its launch");
  ASSERT_EQ(F["edits"].size(), 3u) << F;
  auto Edit = [&](size_t I) {
    const auto &E = F["edits"][I];
    return std::to_string(E["line"].get<unsigned>()) + ":" +
           std::to_string(E["column"].get<unsigned>()) + "+" +
           std::to_string(E["length"].get<unsigned>()) + " " +
           E["text"].get<std::string>();
  };
  EXPECT_EQ(Edit(0), "4:3+31 extern __shared__ __align__(16) unsigned char "
                     "tile_storage[];\n  float (&tile)[128][128] = "
                     "*reinterpret_cast<float (*)[128][128]>(tile_storage)");
  EXPECT_EQ(Edit(1),
            "20:3+0 cudaFuncSetAttribute(plain, "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);\n  ");
  EXPECT_EQ(Edit(2), "20:17+0 , 65536");
}

// The user's nvcc line after `--`, with its compiler or without: read as
// nvcc's, its architectures analysed; a flag tilefit does not know is a
// warning, not a failed parse. Clang's own spellings still go to Clang.
TEST_F(CliTest, NvccFlagsAfterDashDashAreReadAsNvccs) {
  std::string K = write("k.cu", GoodKernel);
  auto Archs = [](const nlohmann::json &J) {
    std::string A;
    for (const auto &Kernel : J["kernels"])
      A += (A.empty() ? "" : ",") + Kernel["arch"].get<std::string>();
    return A;
  };
  CommandResult R =
      tilefit({"--format=json", K, "--", "-arch=sm_80", "--use_fast_math",
               "-gencode", "arch=compute_90,code=sm_90", "--frobnicate"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(Archs(json(R)), "sm_80,sm_90") << R.Out;
  EXPECT_NE(R.Err.find("--frobnicate"), std::string::npos) << R.Err;

  R = tilefit({"--format=json", K, "--", "/usr/local/cuda/bin/nvcc",
               "-arch=sm_86", "--expt-relaxed-constexpr", "-c", K, "-o",
               "k.o"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(Archs(json(R)), "sm_86") << R.Out;

  // -arch=native: said when tilefit has to choose, not when --arch chose.
  R = tilefit({"--format=json", K, "--", "-arch=native"});
  EXPECT_EQ(Archs(json(R)), "sm_75") << R.Out;
  EXPECT_NE(R.Err.find("-arch=native"), std::string::npos) << R.Err;
  R = tilefit({"--format=json", "--arch=sm_90", K, "--", "-arch=native"});
  EXPECT_EQ(Archs(json(R)), "sm_90") << R.Out;
  EXPECT_EQ(R.Err.find("-arch=native"), std::string::npos) << R.Err;

  R = tilefit(
      {"--format=json", K, "--", "--cuda-gpu-arch=sm_75", "-std=c++17"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_EQ(Archs(json(R)), "sm_75") << R.Out;
}

// Each scope has its keys in the JSON report: registers and tensor_memory per
// kernel (null on an architecture without Tensor Memory), constant_memory per
// unit. With -rdc nvlink puts the __constant__ data of every unit into one
// bank: 2 x 40 KiB is "File uses too much global constant data (0x14000 bytes,
// 0x10000 max)" at link time, though each unit alone fits. Without -rdc each
// unit is its own module.
TEST_F(CliTest, RelocatableUnitsConstantDataIsCheckedOverTheProgram) {
  auto Unit = [&](const std::string &Name, unsigned Floats) {
    return write(Name + ".cu", "__constant__ float table_" + Name + "[" +
                                   std::to_string(Floats) +
                                   "];\n__global__ void k_" + Name +
                                   "(float *o) { o[threadIdx.x] = table_" +
                                   Name + "[threadIdx.x]; }\n");
  };
  std::string A = Unit("a", 10240), B = Unit("b", 10240);
  auto Run = [&](std::vector<std::string> Flags) {
    std::vector<std::string> Args = {
        "--no-cache", "--format=json", "--arch=sm_90", A, B, "--"};
    Args.insert(Args.end(), Flags.begin(), Flags.end());
    return tilefit(Args);
  };
  auto ProgramFindings = [](const CommandResult &R) {
    std::vector<nlohmann::json> Out;
    const nlohmann::json J = json(R);
    for (const auto &D : J["diagnostics"])
      if (D["check"] == "tilefit-constant")
        Out.push_back(D);
    return Out;
  };
  CommandResult Rdc = Run({"-fgpu-rdc"});
  EXPECT_EQ(Rdc.Status, 1) << Rdc.Err;
  auto Found = ProgramFindings(Rdc);
  ASSERT_EQ(Found.size(), 1u) << Rdc.Out;
  EXPECT_NE(Found[0]["message"].get<std::string>().find("81920 bytes"),
            std::string::npos)
      << Found[0].dump();
  EXPECT_EQ(Found[0]["notes"].size(), 2u);

  CommandResult Separate = Run({});
  EXPECT_EQ(Separate.Status, 0) << Separate.Err;
  EXPECT_TRUE(ProgramFindings(Separate).empty())
      << "without -rdc each unit is its own module";

  B = Unit("b", 4096); // 40 KiB + 16 KiB fit
  EXPECT_TRUE(ProgramFindings(Run({"-fgpu-rdc"})).empty());
}

TEST_F(CliTest, JsonHasEachScope) {
  std::string K = write("scopes.cu", R"(
__constant__ float coeffs[16];
__global__ void __launch_bounds__(256, 2) tile(float *o, int n) {
  float acc[8][8];
  for (int i = 0; i < 64; ++i)
    acc[i / 8][i % 8] = o[i * n + threadIdx.x] * coeffs[i % 16];
  o[threadIdx.x] = acc[n % 8][threadIdx.x % 8];
}
)");
  CommandResult R =
      tilefit({"--no-cache", "--format=json", "--arch=sm_90,sm_100a", K, "--"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 2u);
  for (const auto &Kernel : J["kernels"]) {
    const auto &G = Kernel["registers"];
    EXPECT_EQ(G["bytes_per_thread"], 256);
    EXPECT_EQ(G["registers_per_thread"], 64);
    EXPECT_EQ(G["block_threads"], 256);
    EXPECT_EQ(G["bytes_per_block"], 65536);
    EXPECT_EQ(G["registers_per_thread_limit"], 128);
    EXPECT_EQ(G["limit_basis"], "__launch_bounds__(256, 2)");
    ASSERT_EQ(G["arrays"].size(), 1u);
    EXPECT_EQ(G["arrays"][0]["name"], "acc");
  }
  for (const auto &Kernel : J["kernels"]) {
    if (Kernel["arch"] == "sm_90") {
      EXPECT_TRUE(Kernel["tensor_memory"].is_null());
    } else {
      EXPECT_EQ(Kernel["tensor_memory"]["capacity_columns"], 512);
      EXPECT_EQ(Kernel["tensor_memory"]["columns"], 0);
    }
  }
  for (const auto &U : J["translation_units"]) {
    EXPECT_EQ(U["constant_memory"]["bytes"], 64);
    EXPECT_EQ(U["constant_memory"]["limit"], 65536);
    ASSERT_EQ(U["constant_memory"]["variables"].size(), 1u);
    EXPECT_EQ(U["constant_memory"]["variables"][0]["name"], "coeffs");
  }
}

TEST_F(CliTest, TextEndsWithSummaryTable) {
  std::string K = write("k.cu", GoodKernel);
  CommandResult R = tilefit({"--arch=sm_90", K});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_TRUE(
      std::regex_search(R.Out, std::regex(R"(\nkernel +sm_90\ngood +256 B\n)")))
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
  EXPECT_NE(R.Out.find("big.cu:2:17: error: kernel 'big' uses 51200 bytes"),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("[tilefit-static-limit]"), std::string::npos);
  EXPECT_NE(R.Out.find("big.cu:3:20: note: 'tile' takes 51200 bytes"),
            std::string::npos)
      << R.Out;
}

TEST_F(CliTest, BadUnitsDoNotStopGoodOnes) {
  std::string Good = write("good.cu", GoodKernel);
  std::string Broken =
      write("broken.cu", "__global__ void k() { int x = ; }\n");
  std::string Host = write("host.cpp", "int main() { return 0; }\n");
  CommandResult R = tilefit({"--format=json", "--arch=sm_90", Good, Broken,
                             Host, Dir + "/missing.cu", "--"});
  EXPECT_EQ(R.Status, 2);
  nlohmann::json J = json(R);
  // The broken unit's kernel is there, without a figure: its error is in its
  // body.
  ASSERT_EQ(J["kernels"].size(), 2u) << R.Out;
  std::map<std::string, nlohmann::json> Kernels;
  for (const auto &K : J["kernels"])
    Kernels[K["name"].get<std::string>()] = K;
  EXPECT_EQ(Kernels["good"]["static_smem_bytes"], 256);
  EXPECT_TRUE(Kernels["k"]["static_smem_bytes"].is_null());
  EXPECT_NE(
      Kernels["k"]["unknown_reason"].get<std::string>().find("broken.cu:1:"),
      std::string::npos)
      << Kernels["k"].dump();
  std::map<std::string, nlohmann::json> Units;
  for (const auto &U : J["translation_units"])
    Units[llvm::sys::path::filename(U["file"].get<std::string>()).str()] = U;
  EXPECT_EQ(Units["good.cu"]["status"], "ok");
  EXPECT_EQ(Units["broken.cu"]["status"], "partial");
  EXPECT_EQ(Units["broken.cu"]["messages"][0]["line"], 1);
  EXPECT_EQ(Units["broken.cu"]["messages"][0]["check"],
            "clang-diagnostic-error");
  EXPECT_EQ(Units["host.cpp"]["status"], "error");
  EXPECT_NE(Units["host.cpp"]["messages"][0]["message"].get<std::string>().find(
                "not a CUDA source"),
            std::string::npos);
  EXPECT_EQ(Units["missing.cu"]["status"], "error");
  EXPECT_NE(
      Units["missing.cu"]["messages"][0]["message"].get<std::string>().find(
          "cannot read"),
      std::string::npos);
}

TEST_F(CliTest, UnreadableAndDirectoryInputs) {
  std::string K = write("locked.cu", GoodKernel);
  ::chmod(K.c_str(), 0);
  llvm::sys::fs::create_directories(Dir + "/dir.cu");
  CommandResult R = tilefit({"--arch=sm_90", K, Dir + "/dir.cu", "--"});
  ::chmod(K.c_str(), 0644);
  EXPECT_EQ(R.Status, 2);
  if (::geteuid() != 0) { // root reads anything
    EXPECT_NE(R.Out.find("locked.cu"), std::string::npos) << R.Out;
  }
  EXPECT_NE(R.Out.find("is not a regular file"), std::string::npos) << R.Out;
}

TEST_F(CliTest, MalformedCapacityDatabaseNamesFileAndKey) {
  std::string K = write("k.cu", GoodKernel);
  std::string Db = write(
      "db.json",
      R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": "x"}}}})");
  CommandResult R = tilefit({"--capacity-db=" + Db, K});
  EXPECT_EQ(R.Status, 2);
  EXPECT_NE(R.Err.find("db.json: architectures.sm_90.shared_memory.per_sm"),
            std::string::npos)
      << R.Err;
}

TEST_F(CliTest, CapacityDatabaseExtendsTheBuiltinOne) {
  std::string K = write("k.cu", GoodKernel);
  std::string Db = write(
      "db.json",
      R"({"architectures": {"sm_90": {"shared_memory": {"block_default_max": 100, "block_optin_max": 200}}}})");
  CommandResult R = tilefit({"--capacity-db=" + Db, "--arch=sm_90", K});
  EXPECT_EQ(R.Status, 1) << R.Out << R.Err;
  EXPECT_NE(R.Out.find("[tilefit-capacity]"), std::string::npos) << R.Out;
}

TEST_F(CliTest, CompilationDatabaseWithPluginFlagsNeverLoadsThem) {
  std::string K = write("k.cu", GoodKernel);
  write("build/compile_commands.json",
        "[{\"directory\": \"" + Dir +
            "\", \"arguments\": [\"clang++\", \"-Xclang\", \"-load\", "
            "\"-Xclang\", \"/nonexistent/evil.so\", "
            "\"-fplugin=/nonexistent/evil2.so\", "
            "\"--cuda-gpu-arch=sm_80\", \"-c\", \"" +
            K + "\"], \"file\": \"" + K + "\"}]");
  CommandResult R = tilefit({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Out << R.Err;
  EXPECT_NE(R.Err.find("ignored flags that would load code"), std::string::npos)
      << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["arch"], "sm_80")
      << "the architecture comes from the command";
}

TEST_F(CliTest, SourcesSelectDatabaseEntriesAndDuplicatesAreOne) {
  std::string A = write("src/a.cu", GoodKernel),
              B = write("src/b.cu", GoodKernel);
  auto Entry = [&](const std::string &File, const std::string &Out) {
    return "{\"directory\": \"" + Dir +
           "\", \"command\": \"nvcc -arch=sm_80 -c " + File + " -o " + Out +
           "\", \"file\": \"" + File + "\"}";
  };
  // a.cu twice with the same flags (two configurations writing different
  // objects), and b.cu.
  write("build/compile_commands.json", "[" + Entry(A, "debug/a.o") + ", " +
                                           Entry(A, "release/a.o") + ", " +
                                           Entry(B, "b.o") + "]");
  auto Units = [&](std::vector<std::string> Args) {
    Args.insert(Args.begin(), {"-p", Dir + "/build", "--format=json"});
    CommandResult R = tilefit(Args);
    EXPECT_EQ(R.Status, 0) << R.Err;
    nlohmann::json J = json(R);
    std::vector<std::string> Files;
    for (const auto &U : J["translation_units"])
      Files.push_back(
          llvm::sys::path::filename(U["file"].get<std::string>()).str());
    return Files;
  };
  EXPECT_EQ(Units({}), (std::vector<std::string>{"a.cu", "b.cu"}));
  EXPECT_EQ(Units({A}), (std::vector<std::string>{"a.cu"})) << "absolute path";
  EXPECT_EQ(Units({"src/b.cu"}), (std::vector<std::string>{"b.cu"}))
      << "relative to the cwd";
  EXPECT_EQ(Units({"b.cu"}), (std::vector<std::string>{"b.cu"}))
      << "path suffix";
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
  CommandResult R =
      tilefit({"--no-cuda-toolkit", "--format=json", "--arch=sm_90", K, "--"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  EXPECT_NE(R.Err.find("built-in CUDA prelude"), std::string::npos) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["static_smem_bytes"], 256);

  // The source fix-ups work there too: a __shared__ object with a constructor.
  std::string C = write("ctor.cu", R"(
struct Sums { float s[8]; __device__ Sums() { for (float &x : s) x = 0; } };
__global__ void acc(const float *in, float *out) {
  __shared__ Sums sums;
  sums.s[threadIdx.x % 8] += in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = sums.s[(threadIdx.x + 1) % 8];
}
)");
  R = tilefit({"--no-cuda-toolkit", "--format=json", "--arch=sm_90", C, "--"});
  ASSERT_EQ(R.Status, 0) << R.Out << R.Err;
  J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["static_smem_bytes"], 32);
  EXPECT_EQ(J["translation_units"][0]["source_fixups"][0]["rule"],
            "shared-constructor");
}

// SGEMM_CUDA defines every kernel in the project's .cuh files: a finding there
// is the project's, shown and counted for the exit status, once however many
// units include the header. Headers outside the project, or in a folder its
// commands include with -isystem, are not; the header filter, when given,
// decides alone.
TEST_F(CliTest, FindingsInTheProjectsHeadersFailTheGate) {
  const char *Big = R"(
__global__ void big(float *o) {
  __shared__ float tile[64][256];
  tile[threadIdx.x % 64][threadIdx.y % 256] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = tile[(threadIdx.x + 1) % 64][threadIdx.y % 256];
}
)";
  write("project/inc/big_kernel.cuh", Big);
  write("project/third_party/vendored.cuh",
        std::string(Big).replace(17, 3, "vendored"));
  write("elsewhere/outside.cuh", std::string(Big).replace(17, 3, "outside"));
  std::string A =
      write("project/a.cu", "#include \"inc/big_kernel.cuh\"\n"
                            "#include \"third_party/vendored.cuh\"\n"
                            "#include \"../elsewhere/outside.cuh\"\n");
  std::string B = write("project/b.cu", "#include \"inc/big_kernel.cuh\"\n");
  const std::vector<std::string> Flags = {"--", "-std=c++17", "-isystem",
                                          Dir + "/project/third_party"};
  auto Run = [&](std::vector<std::string> Args) {
    Args.insert(Args.end(), Flags.begin(), Flags.end());
    return tilefit(Args);
  };
  CommandResult R =
      Run({"--arch=sm_90", "--source-root=" + Dir + "/project", A, B});
  EXPECT_EQ(R.Status, 1) << "a 64 KiB tile in a project header fails the gate\n"
                         << R.Out;
  auto Count = [](const std::string &Text, const std::string &What) {
    size_t N = 0;
    for (size_t P = Text.find(What); P != std::string::npos;
         P = Text.find(What, P + 1))
      ++N;
    return N;
  };
  EXPECT_EQ(Count(R.Out, "big_kernel.cuh:2:17: error:"), 1u) << "once per run\n"
                                                             << R.Out;
  EXPECT_EQ(R.Out.find("vendored.cuh:2:17: error:"), std::string::npos)
      << R.Out;
  EXPECT_EQ(R.Out.find("outside.cuh:2:17: error:"), std::string::npos) << R.Out;
  EXPECT_NE(R.Err.find("finding(s) in headers outside the project"),
            std::string::npos)
      << R.Err;

  // The project's folder by default: the deepest holding every unit.
  R = Run({"--arch=sm_90", A, B});
  EXPECT_EQ(R.Status, 1) << R.Out;
  EXPECT_EQ(Count(R.Out, "big_kernel.cuh:2:17: error:"), 1u) << R.Out;

  // --header-filter decides alone: here only the vendored header's finding.
  R = Run({"--arch=sm_90", "--header-filter=.*vendored\\.cuh$", A});
  EXPECT_EQ(R.Status, 1);
  EXPECT_NE(R.Out.find("vendored.cuh:2:17: error:"), std::string::npos)
      << R.Out;
  EXPECT_EQ(R.Out.find("big_kernel.cuh:2:17: error:"), std::string::npos)
      << R.Out;
  // And one that matches nothing hides every header's finding: figures are
  // still reported.
  R = Run({"--arch=sm_90", "--header-filter=^$", A});
  EXPECT_EQ(R.Status, 0) << R.Out;
  EXPECT_NE(R.Out.find("64 KiB"), std::string::npos) << R.Out;

  EXPECT_EQ(tilefit({"--header-filter=(", A, "--"}).Status, 2)
      << "a bad regex is a usage error";
}

TEST_F(CliTest, OneUnitThatCrashesClangDoesNotStopTheOthers) {
  std::string Crash = write(
      "crash.cu", "#pragma clang __debug crash\n__global__ void k() {}\n");
  std::string Good = write("good.cu", GoodKernel);
  CommandResult R =
      tilefit({"--format=json", "--arch=sm_90", Crash, Good, "--"});
  EXPECT_EQ(R.Status, 2);
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 1u);
  EXPECT_EQ(J["kernels"][0]["name"], "good");
  bool Reported = false;
  for (const auto &U : J["translation_units"])
    if (U["status"] == "error")
      Reported |= U["messages"][0]["message"].get<std::string>().find(
                      "crashed") != std::string::npos;
  EXPECT_TRUE(Reported) << R.Out;
}

TEST_F(CliTest, PtxOnlyTargetsAreMarkedJit) {
  std::string K = write("k.cu", GoodKernel);
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir +
            "\", \"command\": \"nvcc -gencode arch=compute_80,code=sm_80 "
            "-gencode arch=compute_90,code=compute_90 -c " +
            K + "\", \"file\": \"" + K + "\"}]");
  CommandResult R = tilefit({"-p", Dir, "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  ASSERT_EQ(J["kernels"].size(), 2u);
  EXPECT_EQ(J["kernels"][0]["arch"], "sm_80");
  EXPECT_EQ(J["kernels"][0]["jit"], false);
  EXPECT_EQ(J["kernels"][1]["arch"], "sm_90");
  EXPECT_EQ(J["kernels"][1]["jit"], true);
  CommandResult T = tilefit({"-p", Dir});
  EXPECT_NE(T.Out.find("sm_90 (JIT)"), std::string::npos) << T.Out;
}

TEST_F(CliTest, ProgressOnlyWhenAsked) {
  std::string A = write("a.cu", GoodKernel), B = write("b.cu", GoodKernel);
  // Not a terminal (the test captures stderr): no progress unless forced.
  CommandResult Plain = tilefit({"--arch=sm_80,sm_90", A, B, "--"});
  EXPECT_EQ(Plain.Err.find("[4/4]"), std::string::npos) << Plain.Err;
  CommandResult Forced =
      tilefit({"--progress", "--arch=sm_80,sm_90", A, B, "--"});
  EXPECT_NE(Forced.Err.find("[4/4]"), std::string::npos) << Forced.Err;
  EXPECT_EQ(Forced.Out, Plain.Out) << "progress never goes to stdout";
  CommandResult Quiet =
      tilefit({"--progress", "--quiet", "--arch=sm_80", A, "--"});
  EXPECT_EQ(Quiet.Err.find("[1/1]"), std::string::npos);
}

TEST_F(CliTest, UnknownNvccFlagsWarnOncePerRun) {
  std::string A = write("a.cu", GoodKernel), B = write("b.cu", GoodKernel);
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir +
            "\", \"command\": \"nvcc --frobnicate -arch=sm_80 -c " + A +
            "\", \"file\": \"" + A +
            "\"},"
            " {\"directory\": \"" +
            Dir + "\", \"command\": \"nvcc --frobnicate -arch=sm_80 -c " + B +
            "\", \"file\": \"" + B + "\"}]");
  CommandResult R = tilefit({"-p", Dir});
  EXPECT_EQ(R.Status, 0) << R.Err;
  size_t First = R.Err.find("--frobnicate");
  ASSERT_NE(First, std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("--frobnicate", First + 1), std::string::npos) << R.Err;
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
  // No --arch and no flags: nvcc 13's default architecture, sm_75, on both
  // sides.
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
    EXPECT_EQ(Kernel["static_smem_bytes"].get<uint64_t>(),
              P.Figures["sm_75"][Mangled])
        << Mangled;
  }
}

// Kernel names nvcc and Clang number differently: nvcc (EDG) keys a template
// parameter's substitution by its depth in the template as written and its
// index, Clang by its index and whether it is a pack. Where they differ,
// `name_differs_from_nvcc` says so, and only there: a lambda of run<T, U>
// launched as launch_kernel<F, Args...> (nvcc `DpS3_`, Clang `DpT0_`), and a
// variadic function template's specialization as a template argument (kv);
// k2's keys agree and its name is ptxas's.
TEST_F(CliTest, NamesTilefitCannotDeriveAreSaidToDiffer) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH";
  std::string K = write("lambdas.cu", R"(
template <typename F, typename... Args> __global__ void launch_kernel(F f, Args... args) { f(args...); }
template <typename T, typename U> void run(T *p, U n) {
  auto body = [=] __device__(T * q, U m) { q[m] = T(); };
  launch_kernel<<<1, 1>>>(body, p, n);
}
template <typename F, typename T0> __global__ void k2(F f, T0 a, int b) { f(a, b); }
template <typename T, typename U> void run2(T *p, U n) {
  auto body = [=] __device__(T * q, U m) { q[m] = T(); };
  k2<<<1, 1>>>(body, p, n);
}
template <typename... Ts> __device__ void vf(Ts... ts) {}
template <typename T, void (*F)(int, float)> __global__ void kv(T t) { F(1, 2.f); }
void go(float *p) {
  run(p, 3);
  run2(p, 3);
  kv<float, vf<int, float>><<<1, 1>>>(1.f);
}
)");
  CommandResult R =
      tilefit({"--format=json", "--arch=sm_80", K, "--", "--extended-lambda"});
  ASSERT_EQ(R.Status, 0) << R.Err;
  nlohmann::json J = json(R);
  PtxasFigures P = ptxasFigures(K, {"--extended-lambda"}, {"sm_80"});
  ASSERT_TRUE(P.Error.empty()) << P.Error;
  ASSERT_EQ(J["kernels"].size(), 3u);
  ASSERT_EQ(P.Figures["sm_80"].size(), 3u);
  for (const auto &Kernel : J["kernels"]) {
    const std::string Name = Kernel["name"], Mangled = Kernel["mangled"];
    const bool Flagged = !Kernel["name_differs_from_nvcc"].is_null();
    const bool Equal = P.Figures["sm_80"].count(Mangled) > 0;
    EXPECT_NE(Flagged, Equal)
        << Name << ": " << Mangled << " " << Kernel["name_differs_from_nvcc"];
    EXPECT_EQ(Flagged, Name.rfind("k2<", 0) != 0) << Name;
  }
}

/// nvcc makes the module id from the host side's view of the unit; where the
/// first external definition the device-side parse sees may not be the host
/// side's, the names that carry the module id are said to differ, and only
/// those: each flagged name differs from ptxas's, each unflagged one equals it.
TEST_F(CliTest, ModuleIdsTheHostSideMayMakeOtherwiseAreSaidToDiffer) {
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH";
  struct Unit {
    const char *Name;
    const char *Text;
    bool Rdc;
    bool Flagged;
  };
  const Unit Units[] = {
      // The host side's first external definition is one the device side
      // skips.
      {"host_first.cu", R"(
#ifndef __CUDA_ARCH__
int host_only_counter = 7;
#endif
__device__ int dev_value = 3;
namespace {
__global__ void k(int *p) { *p = dev_value; }
} // namespace
void go(int *p) { k<<<1, 1>>>(p); }
)",
       false, true},
      // The device side's first external definition is one the host side
      // skips; with -rdc, in the name of a static kernel.
      {"device_first.cu", R"(
#ifdef __CUDA_ARCH__
__device__ int dev_only(int x) { return x + 1; }
#endif
int both = 2;
static __global__ void k(int *p) { *p = 1; }
void go(int *p) { k<<<1, 1>>>(p); }
)",
       true, true},
      // A conditional on __CUDA_ARCH__ after the first definition changes
      // nothing.
      {"arch_after.cu", R"(
int both = 2;
namespace {
__global__ void k(int *p) {
#if __CUDA_ARCH__ >= 800
  *p = 1;
#else
  *p = 2;
#endif
}
} // namespace
void go(int *p) { k<<<1, 1>>>(p); }
)",
       false, false},
  };
  for (const Unit &U : Units) {
    SCOPED_TRACE(U.Name);
    std::string File = write(U.Name, U.Text);
    std::vector<std::string> Args = {"--format=json", "--arch=sm_80", File,
                                     "--"};
    std::vector<std::string> NvccFlags;
    if (U.Rdc) {
      Args.push_back("-fgpu-rdc");
      NvccFlags.push_back("-rdc=true");
    }
    CommandResult R = tilefit(Args);
    ASSERT_EQ(R.Status, 0) << R.Err;
    nlohmann::json J = json(R);
    PtxasFigures P = ptxasFigures(File, NvccFlags, {"sm_80"});
    ASSERT_TRUE(P.Error.empty()) << P.Error;
    ASSERT_EQ(J["kernels"].size(), 1u);
    ASSERT_EQ(P.Figures["sm_80"].size(), 1u);
    const auto &Kernel = J["kernels"][0];
    const std::string Mangled = Kernel["mangled"];
    const bool Flagged = !Kernel["name_differs_from_nvcc"].is_null();
    EXPECT_EQ(Flagged, U.Flagged)
        << Mangled << " " << Kernel["name_differs_from_nvcc"];
    EXPECT_NE(Flagged, P.Figures["sm_80"].count(Mangled) > 0)
        << Mangled << " against " << P.Figures["sm_80"].begin()->first;
  }
}

/// Every kernel of \p J whose architecture ptxas compiled must have ptxas's
/// figure, and every kernel ptxas compiled must be in \p J.
void expectFiguresEqualPtxas(const nlohmann::json &J, PtxasFigures &P) {
  size_t Compared = 0;
  std::set<std::pair<std::string, std::string>> Ours;
  for (const auto &K : J["kernels"]) {
    std::string Arch = K["arch"], Mangled = K["mangled"];
    Ours.insert({Arch, Mangled});
    auto &ForArch = P.Figures[Arch];
    ASSERT_TRUE(ForArch.count(Mangled))
        << Arch << ": ptxas did not compile " << Mangled;
    EXPECT_EQ(K["static_smem_bytes"].get<uint64_t>(), ForArch[Mangled])
        << Arch << " " << Mangled;
    ++Compared;
  }
  for (const auto &[Arch, Kernels] : P.Figures)
    for (const auto &[Mangled, Bytes] : Kernels)
      EXPECT_TRUE(Ours.count({Arch, Mangled}))
          << Arch << ": tilefit misses " << Mangled;
  EXPECT_GT(Compared, 0u);
}

TEST_F(CliTest, ExampleProjectMatchesPtxasPerArchitecture) {
  std::string Example = sourceDir() + "/compile_commands_example";
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: CMake cannot configure the example";
  // Configure with ptxas's report on, so that building it for real prints
  // ptxas's figures.
  CommandResult C = runCommand({"cmake", "-S", Example, "-B", Dir + "/example",
                                "-DCMAKE_CUDA_COMPILER=nvcc",
                                "-DCMAKE_CUDA_FLAGS=-Xptxas=-v"});
  ASSERT_EQ(C.Status, 0) << C.Out << C.Err;
  CommandResult R = tilefit({"-p", Dir + "/example", "--format=json"});
  // window_sum asks for 112 KiB at launch: more than sm_89's 99 KiB.
  ASSERT_EQ(R.Status, 1) << R.Out << R.Err;
  nlohmann::json J = json(R);
  std::set<std::string> Files, Archs;
  for (const auto &U : J["translation_units"]) {
    EXPECT_EQ(U["status"], "ok") << U.dump();
    Files.insert(llvm::sys::path::filename(U["file"].get<std::string>()).str());
    Archs.insert(U["arch"].get<std::string>());
  }
  EXPECT_EQ(Files, (std::set<std::string>{"dynamic.cu", "gemm.cu", "reduce.cu",
                                          "stencil.cu", "transpose.cu"}))
      << "main.cpp is host code and is skipped";
  EXPECT_EQ(Archs, (std::set<std::string>{"sm_80", "sm_89", "sm_90"}));
  std::vector<std::string> Errors;
  for (const auto &D : J["diagnostics"])
    if (D["severity"] == "error" || D["severity"] == "warning")
      Errors.push_back(
          D["arch"].get<std::string>() + " " + D["check"].get<std::string>() +
          " " + llvm::sys::path::filename(D["file"].get<std::string>()).str());
  // The launch cannot fit, and the opt-in call before it fails too.
  EXPECT_EQ(Errors,
            (std::vector<std::string>{"sm_89 tilefit-capacity dynamic.cu",
                                      "sm_89 tilefit-optin dynamic.cu"}));
  for (const auto &K : J["kernels"])
    if (K["name"] == "histogram") {
      EXPECT_EQ(K["dynamic_smem"]["launches"][0]["bytes"], 4096);
    }

  // Build it: one compile at a time so that ptxas's lines do not interleave.
  CommandResult B = runCommand({"cmake", "--build", Dir + "/example", "-j1"});
  ASSERT_EQ(B.Status, 0) << B.Out << B.Err;
  PtxasFigures P;
  parsePtxasOutput(B.Out + B.Err, P);
  expectFiguresEqualPtxas(J, P);
}

TEST_F(CliTest, BearDatabaseFromAMakefileMatchesPtxas) {
  if (!haveNvcc() || !llvm::sys::findProgramByName("bear") ||
      !llvm::sys::findProgramByName("make"))
    GTEST_SKIP() << "needs nvcc, bear and make";
  write("src/a.cu", R"(
template <int N> __global__ void fill(float *o) {
  __shared__ float s[N][N + 1];
  s[threadIdx.x % N][threadIdx.y % N] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = s[threadIdx.y % N][threadIdx.x % N];
}
template __global__ void fill<16>(float *);
template __global__ void fill<8>(float *);
)");
  write("src/b.cu", std::string("#include \"defs.h\"\n") + R"(
__global__ void b(double *o) {
  __shared__ double d[WIDTH];
  __shared__ char c[3];
  d[threadIdx.x % WIDTH] = o[threadIdx.x];
  c[threadIdx.x % 3] = 1;
  __syncthreads();
  o[threadIdx.x] = d[(threadIdx.x + 1) % WIDTH] + c[(threadIdx.x + 1) % 3];
}
)");
  write("include/defs.h", "#define WIDTH 24\n");
  // A plain Makefile; nvcc with -gencode, response-style flags and ptxas's
  // report.
  write("Makefile", "NVCC = nvcc\n"
                    "FLAGS = -std=c++17 -Iinclude -Xptxas -v "
                    "-gencode arch=compute_80,code=sm_80 "
                    "-gencode=arch=compute_90,code=[sm_90,compute_90]\n"
                    "all: a.o b.o\n"
                    "%.o: src/%.cu\n"
                    "\t$(NVCC) $(FLAGS) -c $< -o $@\n");
  CommandResult B = runCommand({"bear", "--", "make", "-j1"}, Dir);
  ASSERT_EQ(B.Status, 0) << B.Out << B.Err;
  PtxasFigures P;
  parsePtxasOutput(B.Out + B.Err, P);
  CommandResult R = tilefit({"-p", Dir, "--format=json"});
  ASSERT_EQ(R.Status, 0) << R.Out << R.Err;
  nlohmann::json J = json(R);
  EXPECT_EQ(J["kernels"].size(), 6u) << "3 kernels x 2 architectures";
  expectFiguresEqualPtxas(J, P);
}

TEST_F(CliTest, ReportDoesNotDependOnTheNumberOfJobs) {
  std::string Example = sourceDir() + "/compile_commands_example";
  if (!haveNvcc())
    GTEST_SKIP() << "nvcc is not on PATH: CMake cannot configure the example";
  CommandResult C = runCommand({"cmake", "-S", Example, "-B", Dir + "/example",
                                "-DCMAKE_CUDA_COMPILER=nvcc"});
  ASSERT_EQ(C.Status, 0) << C.Out << C.Err;
  for (const char *Format : {"--format=text", "--format=json"}) {
    CommandResult One = tilefit({"-p", Dir + "/example", "-j", "1", Format});
    CommandResult Two = tilefit({"-p", Dir + "/example", "-j", "2", Format});
    EXPECT_EQ(One.Status, Two.Status);
    EXPECT_FALSE(One.Out.empty());
    EXPECT_EQ(One.Out, Two.Out) << Format;
  }
}

} // namespace
} // namespace test
} // namespace tilefit
