//===- RealCodeTest.cpp ---------------------------------------------------===//
//
// Units written like public projects, with their flags.
//
// tests/real_code holds sources in the style of public CUDA projects, each with
// a construct nvcc compiles and Clang rejects as written
// (tests/real_code/README.md). A compilation database of nvcc commands as each
// project's build writes them is analysed by the built tilefit; every unit must
// parse (but the one with real errors, which is partial), and every kernel
// ptxas compiles from the same command must be in the report with ptxas's
// figure.
//
//===----------------------------------------------------------------------===//
#include "../support/BankOracle.h"
#include "CliFixture.h"

#include "tilefit/model/ReportJson.h"

#include "llvm/Support/Path.h"

#include <set>

namespace tilefit {
namespace test {
namespace {

struct Unit {
  const char *File;               ///< Under tests/real_code.
  std::vector<std::string> Flags; ///< nvcc's, but the architecture, -c and -o.
  const char *Status = "ok";
  /// ptxas prints a pre-link estimate with -rdc: the kernels are compared, not
  /// the figures.
  bool CompareFigures = true;
  /// Given to nvcc only (what it cannot compile, left out).
  std::vector<std::string> NvccOnly = {};
};

std::vector<Unit> units() {
  const std::string Root = sourceDir() + "/tests/real_code";
  // CMake's nvcc line (as for SGEMM_CUDA and the cuda-samples), llm.c's
  // Makefile, CCCL's and LeetCUDA's compile lines.
  const std::vector<std::string> Samples = {"-forward-unknown-to-host-compiler",
                                            "-Wno-deprecated-gpu-targets",
                                            "-lineinfo",
                                            "--extended-lambda",
                                            "-Xcompiler=-fPIE",
                                            "-std=c++17"};
  auto With = [&](std::vector<std::string> Extra) {
    std::vector<std::string> F = Samples;
    F.insert(F.end(), Extra.begin(), Extra.end());
    return F;
  };
  return {
      {"llmc/layernorm_forward.cu", {"-O3", "--use_fast_math", "-std=c++17"}},
      {"sgemm/src/runner.cu",
       {"-forward-unknown-to-host-compiler", "-I" + Root + "/sgemm/src"}},
      {"samples/async_copy.cu", Samples},
      {"samples/transpose.cu", Samples},
      {"samples/reduction.cu", Samples},
      {"samples/image_filters.cu", Samples},
      {"samples/timing.cu", Samples},
      {"samples/openmp.cu", With({"-Xcompiler=-fopenmp"})},
      {"samples/quicksort.cu", With({"-rdc=true"}), "ok",
       /*CompareFigures=*/false},
      {"cccl/kernel_lambda.cu",
       {"-std=c++17", "--expt-relaxed-constexpr", "--extended-lambda"}},
      {"leetcuda/notes.cu",
       {"-O3", "-std=c++17"},
       "partial",
       true,
       {"-DLEAVE_OUT_BROKEN"}},
  };
}

class RealCodeTest : public CliTest {
protected:
  /// compile_commands.json with an nvcc command per unit (of those \p Only
  /// names, if any), for sm_90 as CMake writes it.
  void writeDatabase(const std::set<std::string> &Only = {}) {
    nlohmann::json Db = nlohmann::json::array();
    for (const Unit &U : units()) {
      if (!Only.empty() && !Only.count(U.File))
        continue;
      const std::string File = sourceDir() + "/tests/real_code/" + U.File;
      std::vector<std::string> Args = {"/usr/local/cuda/bin/nvcc"};
      Args.insert(Args.end(), U.Flags.begin(), U.Flags.end());
      for (const char *A :
           {"--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-x",
            "cu", "-c"})
        Args.push_back(A);
      Args.push_back(File);
      Args.push_back("-o");
      Args.push_back(std::string(llvm::sys::path::stem(File)) + ".o");
      Db.push_back(
          {{"directory", std::string(llvm::sys::path::parent_path(File))},
           {"file", File},
           {"arguments", Args}});
    }
    write("build/compile_commands.json", Db.dump(1));
  }
};

TEST_F(RealCodeTest, EveryUnitParsesAndEveryKernelHasPtxassFigure) {
  writeDatabase();
  CommandResult R =
      tilefit({"-p", Dir + "/build", "--format=json", "--no-cache"});
  // The unit with errors nvcc does not diagnose fails the run, as any unit with
  // errors.
  EXPECT_EQ(R.Status, 2) << R.Err;
  nlohmann::json J = json(R);
  std::map<std::string, std::string> Status;
  for (const auto &U : J["translation_units"]) {
    std::string File = U["file"];
    Status[File.substr(File.find("real_code/") + 10)] = U["status"];
    if (U["status"] != "ok")
      for (const auto &M : U["messages"])
        RecordProperty(File, M["message"].get<std::string>());
  }
  for (const Unit &U : units())
    EXPECT_EQ(Status[U.File], U.Status) << U.File << " in\n"
                                        << R.Out.substr(0, 4000);

  if (!haveNvcc())
    GTEST_SKIP()
        << "nvcc is not on PATH: the figures are not compared with ptxas's";
  for (const Unit &U : units()) {
    const std::string File = sourceDir() + "/tests/real_code/" + U.File;
    std::vector<std::string> Flags = U.Flags;
    Flags.insert(Flags.end(), U.NvccOnly.begin(), U.NvccOnly.end());
    PtxasFigures P = ptxasFigures(File, Flags, {"sm_90"});
    ASSERT_TRUE(P.Error.empty()) << U.File << ": " << P.Error;
    std::map<std::string, const nlohmann::json *> Ours;
    for (const auto &K : J["kernels"])
      if (K["translation_unit"] == File)
        Ours[K["mangled"]] = &K;
    ASSERT_FALSE(P.Figures["sm_90"].empty()) << U.File;
    for (const auto &[Mangled, Bytes] : P.Figures["sm_90"]) {
      auto It = Ours.find(Mangled);
      if (It == Ours.end()) {
        ADD_FAILURE() << U.File << ": ptxas compiles " << Mangled
                      << "; tilefit does not report it";
        continue;
      }
      const nlohmann::json &K = *It->second;
      Ours.erase(It);
      if (!U.CompareFigures)
        continue;
      ASSERT_FALSE(K["static_smem_bytes"].is_null())
          << U.File << ": " << K.dump();
      EXPECT_EQ(K["static_smem_bytes"].get<uint64_t>(), Bytes)
          << U.File << ": " << Mangled;
      if (std::string(U.Status) == "partial") {
        EXPECT_EQ(K["unit_has_errors"], true) << Mangled;
      }
    }
    for (const auto &[Mangled, K] : Ours)
      ADD_FAILURE() << U.File << ": tilefit reports " << Mangled
                    << ", which ptxas does not compile";
  }
}

// Body slicing changes no figure, finding or note on real code, under its own
// build flags (C++17 for the units that ask): the report is the report of
// every body instantiated whole.
TEST_F(RealCodeTest, BodySlicingChangesNoFigure) {
  writeDatabase();
  CommandResult Sliced =
      tilefit({"-p", Dir + "/build", "--format=json", "--no-cache"});
  CommandResult Whole = tilefit({"-p", Dir + "/build", "--format=json",
                                 "--no-cache", "--no-body-slicing"});
  ASSERT_EQ(Sliced.Status, Whole.Status) << Sliced.Err << Whole.Err;
  for (const std::string &D : slicingDifferences(Sliced.Out, Whole.Out))
    ADD_FAILURE() << D;
}

// The bank analysis on real code: the kernels their authors rewrote to remove a
// bank conflict get the verdict they were written for (cuda-samples'
// transposeCoalesced and transposeNoBankConflicts, SGEMM_CUDA's kernels 6 and
// 7), the conflict is a warning on its line and its fix is not, and every
// analysed access's degree is the oracle's.
TEST_F(RealCodeTest, BankConflictsAreWhereTheirAuthorsSawThem) {
  writeDatabase(
      {"sgemm/src/runner.cu", "samples/transpose.cu", "samples/reduction.cu"});
  // The reduction sample chooses its block at run time: the configuration
  // states the one its benchmark runs.
  CommandResult R = tilefit(
      {"-p", Dir + "/build", "--format=json", "--no-cache",
       "--config={BlockShapes: [{Kernel: 'reduce*', Shape: [256, 1, 1]}]}"});
  ASSERT_LE(R.Status, 1) << R.Err;
  auto Report = readJsonReport(R.Out, "report");
  ASSERT_TRUE(static_cast<bool>(Report)) << Report.error();
  // The degree of the access of \p Kind written \p Text in the kernels whose
  // name begins with \p Kernel (the same in each); 0 where it is not
  // analysed.
  auto Degree = [&](const std::string &Kernel, const std::string &Text,
                    bool Store) {
    std::set<unsigned> Found;
    for (const KernelReport &K : Report->Kernels)
      if (K.Name.rfind(Kernel, 0) == 0)
        for (const BankAccessReport &B : K.BankAccesses)
          if (B.Access.Text == Text && B.Access.Store == Store)
            Found.insert(B.Verdict.Analysed ? B.Verdict.Degree : 0);
    EXPECT_EQ(Found.size(), 1u) << Kernel << ": " << Text;
    return Found.empty() ? ~0u : *Found.begin();
  };
  const std::string Column = "tile[threadIdx.x][threadIdx.y + i]";
  const std::string Row = "tile[threadIdx.y + i][threadIdx.x]";
  EXPECT_EQ(Degree("transposeCoalesced", Column, false), 32u);
  EXPECT_EQ(Degree("transposeCoalesced", Row, true), 1u);
  EXPECT_EQ(Degree("transposeNoBankConflicts", Column, false), 1u);
  EXPECT_EQ(Degree("transposeNoBankConflicts", Row, true), 1u);
  EXPECT_EQ(
      Degree("sgemmVectorize", "Bs[dotIdx * BN + threadCol * TN + i]", false),
      4u);
  EXPECT_EQ(Degree("sgemmResolveBankConflicts",
                   "Bs[(dotIdx * 8 + i) * 16 + threadCol]", false),
            1u);
  // The reduction: interleaved addressing conflicts (8-way at its worst step
  // for 256 threads), sequential addressing does not; the first kernel's
  // divergent branch leaves each lane its own bank.
  EXPECT_EQ(Degree("reduce1", "sdata[index]", false), 8u);
  EXPECT_EQ(Degree("reduce1", "sdata[index + s]", false), 8u);
  EXPECT_EQ(Degree("reduce2", "sdata[tid]", false), 1u);
  EXPECT_EQ(Degree("reduce2", "sdata[tid + s]", false), 1u);
  EXPECT_EQ(Degree("reduce0", "sdata[tid + s]", false), 1u);
  // The sample's shared-memory copy reads and writes rows under a bounds
  // check on run-time sizes and thread indices: not analysed, never reported.
  EXPECT_EQ(Degree("copySharedMem", "tile[threadIdx.y][threadIdx.x]", false),
            0u);

  unsigned Warnings = 0, OnTheFix = 0;
  for (const Diagnostic &D : Report->Diagnostics) {
    if (D.Check != "tilefit-bank-conflict")
      continue;
    ++Warnings;
    OnTheFix += D.Kernel.rfind("transposeNoBankConflicts", 0) == 0 ||
                D.Kernel.rfind("copySharedMem", 0) == 0 ||
                D.Kernel.rfind("reduce2", 0) == 0 ||
                D.Kernel.rfind("reduce0", 0) == 0 ||
                (D.Kernel.rfind("sgemmResolveBankConflicts", 0) == 0 &&
                 D.Message.find("read `Bs") != std::string::npos);
    if (D.Kernel.rfind("transposeCoalesced", 0) == 0) {
      EXPECT_NE(D.Message.find("32-way"), std::string::npos) << D.Message;
    }
  }
  EXPECT_GT(Warnings, 0u);
  EXPECT_EQ(OnTheFix, 0u);

  for (const KernelReport &K : Report->Kernels)
    for (const BankAccessReport &B : K.BankAccesses)
      if (B.Verdict.Analysed) {
        BankOracleResult O = bankOracle(B);
        ASSERT_TRUE(O.Ok) << K.Name << ": " << B.Access.Text << ": " << O.Why;
        EXPECT_EQ(O.Degree, B.Verdict.Degree)
            << K.Name << ": " << B.Access.Text;
      }
}

TEST_F(RealCodeTest, AllowParseErrorsLetsThePartialUnitPass) {
  writeDatabase({"leetcuda/notes.cu", "samples/timing.cu"});
  CommandResult Text = tilefit({"-p", Dir + "/build", "--no-cache"});
  EXPECT_EQ(Text.Status, 2);
  // The report says which unit failed, and with what first error.
  EXPECT_NE(Text.Out.find("tilefit: 1 of 2 units failed to parse:"),
            std::string::npos)
      << Text.Out;
  EXPECT_NE(Text.Out.find("notes.cu (notes.cu:"), std::string::npos)
      << Text.Out;
  EXPECT_EQ(Text.Out.find("no kernels found"), std::string::npos);
  CommandResult Allowed =
      tilefit({"-p", Dir + "/build", "--no-cache", "--allow-parse-errors"});
  EXPECT_NE(Allowed.Status, 2) << Allowed.Out << Allowed.Err;
  CommandResult Configured = tilefit(
      {"-p", Dir + "/build", "--no-cache", "--config=AllowParseErrors: true"});
  EXPECT_NE(Configured.Status, 2) << Configured.Out << Configured.Err;
  CommandResult Bad = tilefit(
      {"-p", Dir + "/build", "--no-cache", "--config=AllowParseErrors: maybe"});
  EXPECT_EQ(Bad.Status, 2);
  EXPECT_NE(Bad.Err.find("expected true or false, got 'maybe'"),
            std::string::npos)
      << Bad.Err;
}

} // namespace
} // namespace test
} // namespace tilefit
