//===- BadInputTest.cpp - The built binary on hostile and broken input ----===//
//
// Each case runs tilefit under a time limit and checks: the documented exit
// status, a message naming the input and the problem, no crash, no hang, and,
// where the bad input belongs to one translation unit, a good unit of the same
// database still reported with its figure. Big and binary inputs are generated
// here rather than committed; the small fixtures are under tests/bad_input/.
//
//===----------------------------------------------------------------------===//
#include "CliFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace tilefit {
namespace test {
namespace {

/// Every run gets this long; a hang fails the test instead of stalling the
/// suite.
constexpr unsigned TimeLimitSeconds = 60;

std::string badInputDir() { return sourceDir() + "/tests/bad_input"; }

std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false);
  return B ? (*B)->getBuffer().str() : std::string();
}

/// 4 KiB of bytes that are not text: NULs, control characters, invalid UTF-8.
std::string binaryBytes() {
  std::mt19937 Gen(9);
  std::string S(4096, '\0');
  for (char &C : S)
    C = static_cast<char>(Gen() & 0xff);
  S[0] = '\0';
  S[1] = '\xff';
  return S;
}

/// Arrays nested \p Depth deep, closed (valid JSON and YAML) or not.
std::string nested(size_t Depth, bool Closed) {
  return std::string(Depth, '[') +
         (Closed ? std::string(Depth, ']') : std::string());
}

class BadInputTest : public CliTest {
protected:
  void SetUp() override {
    CliTest::SetUp();
    Good = write("src/good.cu", GoodKernel);
  }

  /// tilefit under the time limit, in the test's folder. No toolkit (plain
  /// kernels parse in a fraction of the time) and no cache (nothing written
  /// outside the folder).
  CommandResult run(std::vector<std::string> Args, bool Fast = true) {
    if (Fast) {
      Args.insert(Args.begin(), "--no-cache");
      Args.insert(Args.begin(), "--no-cuda-toolkit");
    }
    Args.insert(Args.begin(), binary());
    RunOptions Opts;
    Opts.Cwd = Dir;
    Opts.Seconds = TimeLimitSeconds;
    CommandResult R = runCommand(Args, Opts);
    EXPECT_FALSE(R.TimedOut)
        << "tilefit hung (killed after " << TimeLimitSeconds << " s)";
    // A crash is a signal: ExecuteAndWait reports it as -2 (a time-out too) and
    // the exit statuses 128+ are the shell's spelling of one.
    EXPECT_GE(R.Status, 0) << "tilefit crashed\n" << R.Err;
    EXPECT_LE(R.Status, 2) << R.Err;
    EXPECT_EQ(R.Err.find("Stack dump"), std::string::npos) << R.Err;
    return R;
  }

  /// A compile_commands.json entry for \p File (clang's `arguments` form).
  std::string entry(const std::string &File, const std::string &Flags = "") {
    return "{\"directory\": \"" + Dir + "\", \"arguments\": [\"clang++\", " +
           Flags + "\"--cuda-gpu-arch=sm_80\", \"-c\", \"" + File +
           "\"], \"file\": \"" + File + "\"}";
  }

  /// Writes build/compile_commands.json with the good unit and \p Others.
  void database(const std::vector<std::string> &Others) {
    std::string Text = "[" + entry(Good);
    for (const std::string &E : Others)
      Text += ",\n" + E;
    write("build/compile_commands.json", Text + "]");
  }

  /// The good unit's kernel is in the JSON report with its figure, and its unit
  /// is ok.
  void expectGoodIntact(const CommandResult &R) {
    nlohmann::json J = json(R);
    bool Found = false;
    for (const auto &K : J["kernels"])
      if (K["name"] == "good") {
        EXPECT_EQ(K["static_smem_bytes"], 256) << R.Out;
        Found = true;
      }
    EXPECT_TRUE(Found) << "the good unit's figure is missing\n"
                       << R.Out << R.Err;
    for (const auto &U : J["translation_units"]) {
      if (U["file"] == Good) {
        EXPECT_EQ(U["status"], "ok") << U.dump();
      }
    }
  }

  /// The messages of the unit (or tool message) about \p File in the JSON
  /// report, joined.
  static std::string messagesAbout(const nlohmann::json &J,
                                   const std::string &File) {
    std::string Out;
    for (const auto &U : J["translation_units"])
      if (U["file"] == File)
        for (const auto &M : U["messages"])
          Out += M["message"].get<std::string>() + "\n";
    for (const auto &M : J["tool_messages"])
      if (M["file"] == File)
        Out += M["message"].get<std::string>() + "\n";
    return Out;
  }

  /// Writes \p Text (which may hold NULs) to \p Name.
  std::string writeBytes(const std::string &Name, const std::string &Text) {
    return write(Name, Text);
  }

  std::string Good;
};

#define EXPECT_HAS(Haystack, Needle)                                           \
  EXPECT_NE(std::string(Haystack).find(Needle), std::string::npos)             \
      << "expected '" << (Needle) << "' in:\n"                                 \
      << (Haystack)

//===-- JSON and YAML inputs: empty, truncated, binary, deeply nested
//--------===//

/// The four malformed forms of a document, each with a name for messages.
struct Malformed {
  const char *Name;
  std::string Text;
};

std::vector<Malformed> malformed(const std::string &Truncated) {
  return {{"empty", ""},
          {"truncated", Truncated},
          {"binary", binaryBytes()},
          {"nested-open", nested(100000, false)},
          {"nested-closed", nested(100000, true)}};
}

TEST_F(BadInputTest, CompilationDatabaseMalformed) {
  for (const Malformed &M : malformed(
           readFile(badInputDir() + "/truncated_compile_commands.json"))) {
    SCOPED_TRACE(M.Name);
    std::string Db = writeBytes(
        std::string("db-") + M.Name + "/compile_commands.json", M.Text);
    CommandResult R =
        run({"-p", llvm::sys::path::parent_path(Db).str(), "--format=json"});
    EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
    EXPECT_HAS(R.Out + R.Err, Db);
  }
}

TEST_F(BadInputTest, CompilationDatabaseEntriesOfTheWrongShape) {
  // A deeply nested entry, entries of wrong types: each an error naming it
  // (exit status 2); the good entry is analysed.
  std::string Db =
      write("build/compile_commands.json",
            "[" + nested(100000, true) +
                ", 42, {\"directory\": 7, \"file\": \"x.cu\"}, " +
                "{\"directory\": \"" + Dir +
                "\", \"file\": \"x.cu\", \"arguments\": \"clang++\"}, " +
                entry(Good) + "]");
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  std::string M = messagesAbout(json(R), Dir + "/build");
  EXPECT_HAS(M, Db + ", entry 1: not an object; skipped");
  EXPECT_HAS(M, Db + ", entry 2: not an object; skipped");
  EXPECT_HAS(M, Db + ", entry 3: no \"directory\" string; skipped");
  EXPECT_HAS(M, Db + ", entry 4: \"arguments\" is not an array; skipped");
  CommandResult T = run({"-p", Dir + "/build"});
  EXPECT_EQ(T.Status, 2);
  EXPECT_HAS(T.Out + T.Err, Db + ", entry 1: not an object; skipped");
}

TEST_F(BadInputTest, CapacityDatabaseMalformed) {
  for (const Malformed &M :
       malformed(readFile(badInputDir() + "/truncated_capacity.json"))) {
    SCOPED_TRACE(M.Name);
    std::string Db =
        writeBytes(std::string("capacity-") + M.Name + ".json", M.Text);
    CommandResult R = run({"--capacity-db=" + Db, "--format=json", Good, "--"});
    EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
    EXPECT_HAS(R.Err, Db);
  }
}

TEST_F(BadInputTest, ConfigFileMalformed) {
  for (const Malformed &M :
       malformed(readFile(badInputDir() + "/truncated.tilefit.yaml"))) {
    if (M.Text.empty())
      continue; // an empty configuration file configures nothing (README)
    SCOPED_TRACE(M.Name);
    std::string Cfg =
        writeBytes(std::string("cfg-") + M.Name + ".yaml", M.Text);
    CommandResult R =
        run({"--config-file=" + Cfg, "--format=json", Good, "--"});
    EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
    EXPECT_HAS(R.Err, Cfg);
  }
}

TEST_F(BadInputTest, EmptyConfigFileConfiguresNothing) {
  std::string Cfg = write("empty.yaml", "");
  CommandResult R = run({"--config-file=" + Cfg, "--format=json", Good, "--"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  expectGoodIntact(R);
}

TEST_F(BadInputTest, ConfigFileWithARunOfEmptyEntries) {
  // YAML's flow collections of empty entries: the parser recursed once per
  // comma and overflowed the stack (found by fuzz_config).
  for (const char *Open : {"[", "{"}) {
    SCOPED_TRACE(Open);
    std::string Cfg = write("commas.yaml", std::string("Checks: ") + Open +
                                               std::string(300000, ',') + "\n");
    CommandResult R =
        run({"--config-file=" + Cfg, "--format=json", Good, "--"});
    EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
    EXPECT_HAS(R.Err, Cfg + ":1:10: more than 1000 commas in a row");
  }
}

TEST_F(BadInputTest, FoundConfigFileMalformed) {
  // .tilefit.yaml and .tilefit.json found above the source, as the loader looks
  // for them.
  for (const char *Name : {".tilefit.yaml", ".tilefit.json"})
    for (const Malformed &M :
         malformed(readFile(badInputDir() + "/truncated.tilefit.yaml"))) {
      if (M.Text.empty())
        continue;
      SCOPED_TRACE(std::string(Name) + " " + M.Name);
      std::string Sub = std::string("found-") + M.Name + Name;
      std::string Cfg = writeBytes(Sub + "/" + Name, M.Text);
      std::string K = write(Sub + "/k.cu", GoodKernel);
      // Only the units under the broken file stop: the good unit beside them is
      // analysed.
      CommandResult R = run({"--format=json", K, Good, "--"});
      EXPECT_EQ(R.Status, 2) << R.Out << R.Err;
      EXPECT_HAS(R.Out + R.Err, Cfg);
      EXPECT_HAS(R.Out + R.Err, "'" + K + "' not analysed");
      expectGoodIntact(R);
    }
}

TEST_F(BadInputTest, ReportInputsMalformed) {
  // A good report to truncate, and to stand beside the bad one.
  CommandResult G =
      run({"--format=json", "-o", Dir + "/good.json", Good, "--"});
  ASSERT_EQ(G.Status, 0) << G.Err;
  std::string GoodReport = readFile(Dir + "/good.json");
  ASSERT_FALSE(GoodReport.empty());
  for (const Malformed &M :
       malformed(GoodReport.substr(0, GoodReport.size() / 2))) {
    SCOPED_TRACE(M.Name);
    std::string Bad =
        writeBytes(std::string("report-") + M.Name + ".json", M.Text);
    for (std::vector<std::string> Args :
         {std::vector<std::string>{"diff", Bad, Dir + "/good.json"},
          std::vector<std::string>{"diff", Dir + "/good.json", Bad},
          std::vector<std::string>{"merge", Dir + "/good.json", Bad},
          std::vector<std::string>{"--baseline=" + Bad, Good, "--"}}) {
      CommandResult R =
          run(Args, /*Fast=*/Args[0] != "diff" && Args[0] != "merge");
      EXPECT_EQ(R.Status, 2) << Args[0] << "\n" << R.Out << R.Err;
      EXPECT_HAS(R.Err, Bad);
    }
  }
}

//===-- Sources a database entry names
//-------------------------------------===//

TEST_F(BadInputTest, EntryWhoseFileIsMissing) {
  std::string Missing = Dir + "/src/missing.cu";
  database({entry(Missing)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  std::string M = messagesAbout(json(R), Missing);
  EXPECT_HAS(M, "cannot read '" + Missing + "'");
  EXPECT_HAS(M, "No such file or directory");
}

TEST_F(BadInputTest, EntryWhoseFileIsADirectory) {
  std::string D = Dir + "/src/dir.cu";
  llvm::sys::fs::create_directories(D);
  database({entry(D)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), D), "'" + D + "' is not a regular file");
}

TEST_F(BadInputTest, EntryWhoseFileIsAFifo) {
  // Opening a FIFO for reading blocks until a writer comes: tilefit must not
  // open it.
  std::string F = Dir + "/src/fifo.cu";
  ASSERT_EQ(::mkfifo(F.c_str(), 0644), 0);
  database({entry(F)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), F), "'" + F + "' is not a regular file");
  // The same with the cache on (it reads the source to key it).
  R = run({"-p", Dir + "/build", "--format=json", "--no-cuda-toolkit",
           "--cache-dir=" + Dir + "/cache"},
          /*Fast=*/false);
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
}

TEST_F(BadInputTest, IncludeOfAFifoOrADevice) {
  // An #include naming a FIFO (opening it would block) or a device that never
  // ends: the unit's error, not a hang.
  std::string F = Dir + "/src/fifo.h";
  ASSERT_EQ(::mkfifo(F.c_str(), 0644), 0);
  std::string A =
      write("src/a.cu", "#include \"fifo.h\"\n__global__ void a() {}\n");
  std::string B =
      write("src/b.cu", "#include \"/dev/zero\"\n__global__ void b() {}\n");
  database({entry(A), entry(B)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  EXPECT_HAS(messagesAbout(J, A), "fifo.h': not a regular file");
  EXPECT_HAS(messagesAbout(J, B), "/dev/zero': not a regular file");
}

TEST_F(BadInputTest, EntryWhoseFileIsUnreadable) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "running as root, which reads a file of mode 000: the case "
                    "cannot be made";
  std::string F = write("src/locked.cu", GoodKernel);
  ASSERT_EQ(::chmod(F.c_str(), 0), 0);
  database({entry(F)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  ::chmod(F.c_str(), 0644);
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  std::string M = messagesAbout(json(R), F);
  EXPECT_HAS(M, "cannot read '" + F + "'");
  EXPECT_HAS(M, "Permission denied");
}

//===-- Sources that are hard to parse
//--------------------------------------===//

TEST_F(BadInputTest, TenMegabyteSingleLineSource) {
  // The kernel and 10 MB of declarations, all on one line.
  std::string Line =
      "__global__ void wide(float *o) { __shared__ float s[32]; "
      "s[threadIdx.x % 32] = o[0]; __syncthreads(); o[1] = s[0]; }";
  std::string Filler;
  for (size_t I = 0; Filler.size() < (10u << 20); ++I)
    Filler += " static const int c" + std::to_string(I) + " = " +
              std::to_string(I) + ";";
  std::string K = write("src/wide.cu", Line + Filler + "\n");
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Err.substr(0, 2000);
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  bool Found = false;
  for (const auto &Kernel : J["kernels"])
    if (Kernel["name"] == "wide") {
      EXPECT_EQ(Kernel["static_smem_bytes"], 128);
      Found = true;
    }
  EXPECT_TRUE(Found);
  // The text report quotes no 10 MB line.
  CommandResult T = run({"-p", Dir + "/build"});
  EXPECT_EQ(T.Status, 0);
  EXPECT_LT(T.Out.size() + T.Err.size(), 100000u);
}

TEST_F(BadInputTest, IncludeCycle) {
  std::string K =
      write("src/cycle.cu", "#include \"a.h\"\n__global__ void k() {}\n");
  write("src/a.h", "#include \"b.h\"\n");
  write("src/b.h", "#include \"a.h\"\n");
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), K), "#include nested");
}

TEST_F(BadInputTest, AbsurdArraySize) {
  // 2^62 bytes: beyond what Clang lets an array be.
  std::string K = badInputDir() + "/absurd_size.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), K), "array is too large");
}

TEST_F(BadInputTest, HugeArraysDoNotWrapAround) {
  // Each array is as large as Clang allows (2^61 - 1 bytes); nine of them
  // exceed 2^64 bytes in all. The figure must not wrap around to a small
  // number: it is unknown, with the reason.
  std::string K = badInputDir() + "/huge_arrays.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 1) << "certainly above the static limit: an error\n"
                         << R.Err;
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  EXPECT_HAS(J["diagnostics"].dump(), "than 64 bits can count");
  bool Found = false;
  for (const auto &Kernel : J["kernels"])
    if (Kernel["name"] == "huge") {
      Found = true;
      EXPECT_TRUE(Kernel["static_smem_bytes"].is_null())
          << Kernel["static_smem_bytes"];
      if (Kernel["unknown_reason"].is_string()) {
        EXPECT_HAS(Kernel["unknown_reason"].get<std::string>(),
                   "overflows 64 bits");
      } else {
        ADD_FAILURE() << "no reason: " << Kernel.dump();
      }
    }
  EXPECT_TRUE(Found) << R.Out;
}

TEST_F(BadInputTest, LargeButValidArray) {
  // 1 TiB: a figure, and the static limit.
  std::string K = badInputDir() + "/terabyte.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 1) << R.Err;
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  for (const auto &Kernel : J["kernels"]) {
    if (Kernel["name"] == "tera") {
      EXPECT_EQ(Kernel["static_smem_bytes"], uint64_t(1) << 40);
    }
  }
}

TEST_F(BadInputTest, NegativeExtent) {
  std::string K = badInputDir() + "/negative_extent.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), K), "negative size");
}

TEST_F(BadInputTest, ZeroExtent) {
  // A zero-length array (a GNU extension Clang and nvcc accept) takes no
  // memory.
  std::string K = badInputDir() + "/zero_extent.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  bool Found = false;
  for (const auto &Kernel : J["kernels"])
    if (Kernel["name"] == "zero") {
      EXPECT_EQ(Kernel["static_smem_bytes"], 4) << Kernel.dump();
      Found = true;
    }
  EXPECT_TRUE(Found) << R.Out;
}

TEST_F(BadInputTest, IncompleteType) {
  std::string K = badInputDir() + "/incomplete_type.cu";
  database({entry(K)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  EXPECT_HAS(messagesAbout(json(R), K), "incomplete type");
}

TEST_F(BadInputTest, DependentSizes) {
  // A template never instantiated reports nothing; one instantiated with a
  // negative extent is Clang's error, and that kernel is reported with no
  // figure (the unit is partial).
  std::string K = badInputDir() + "/dependent_size.cu";
  std::string Neg = badInputDir() + "/dependent_negative.cu";
  database({entry(K), entry(Neg)});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  expectGoodIntact(R);
  nlohmann::json J = json(R);
  std::set<std::string> Names;
  for (const auto &Kernel : J["kernels"])
    Names.insert(Kernel["name"].get<std::string>());
  EXPECT_EQ(Names, (std::set<std::string>{"good", "sized<16>", "sized<-4>"}))
      << R.Out;
  EXPECT_HAS(messagesAbout(J, Neg), "negative size");
  for (const auto &Kernel : J["kernels"])
    if (Kernel["name"] == "sized<-4>") {
      EXPECT_TRUE(Kernel["static_smem_bytes"].is_null()) << Kernel.dump();
      EXPECT_HAS(Kernel["unknown_reason"].get<std::string>(), "negative size");
    }
}

//===-- Architectures
//--------------------------------------------------------===//

TEST_F(BadInputTest, ArchitectureThatDoesNotExist) {
  // On the command line and in the configuration: a usage error naming it.
  CommandResult R = run({"--arch=sm_999", Good, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_HAS(R.Err, "sm_999");
  R = run({"--config=Architectures: [sm_999]", Good, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_HAS(R.Err, "sm_999");
  R = run({"--arch=sm_", Good, "--"});
  EXPECT_EQ(R.Status, 2);
  EXPECT_HAS(R.Err, "sm_");
}

TEST_F(BadInputTest, ArchitectureThatDoesNotExistInTheDatabase) {
  // In a command: the entry says what it cannot analyse; the other entries are
  // analysed.
  std::string A = write("src/a.cu", GoodKernel),
              B = write("src/b.cu", GoodKernel);
  database({entry(A, "\"--cuda-gpu-arch=sm_999\", "),
            "{\"directory\": \"" + Dir +
                "\", \"command\": \"nvcc -arch=sm_999 -c " + B +
                "\", \"file\": \"" + B + "\"}"});
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_LE(R.Status, 2);
  EXPECT_HAS(R.Err, "sm_999");
  expectGoodIntact(R);
}

//===-- Capacity databases
//----------------------------------------------------===//

TEST_F(BadInputTest, CapacityDatabaseBadValues) {
  struct Case {
    const char *Text, *Expected;
  } Cases[] = {
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": "x"}}}})",
       "architectures.sm_90.shared_memory.per_sm: expected a non-negative "
       "integer"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": -1}}}})",
       "architectures.sm_90.shared_memory.per_sm: expected a non-negative "
       "integer (bytes or a "
       "count) or null, got a negative number"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 1.5}}}})",
       "got a fractional number"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 1e300}}}})",
       "got a fractional number"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 18446744073709551615}}}})",
       "is not a plausible on-chip limit"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": 99999999999999999999999}}}})",
       "per_sm"},
      {R"({"architectures": {"sm_90": {"threads": {"warp_size": 0}}}})",
       "threads.warp_size: must be at least 1"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"allocation_granularity": 0}}}})",
       "allocation_granularity: must be at least 1"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"block_optin_max": 1000000000}}}})",
       "block_optin_max"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"carveout_steps_kib": [8, 4]}}}})",
       "carveout steps must be increasing"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"carveout_steps_kib": [-4]}}}})",
       "carveout_steps_kib[0]"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"carveout_steps_kib": [9999999999999999]}}}})",
       "carveout_steps_kib[0]"},
      {R"({"architectures": {"sm_90": {"shared_memory": {"per_sm": null, "bogus": 1}}}})",
       "architectures.sm_90.shared_memory.bogus: unknown key"},
      {R"({"architectures": {"sm_90": {"inherits": "sm_nope"}}})", "sm_nope"},
      {R"({"architectures": {"sm_90": {"inherits": "sm_90"}}})", "sm_90"},
      {R"({"architectures": {"sm_90": 5}})",
       "architectures.sm_90: expected an object"},
      {R"({"architectures": []})", "architectures"},
      {R"({"replace": "yes"})", "replace"},
      {R"([1, 2])", "(top level): expected an object, got an array"},
  };
  int N = 0;
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Text);
    std::string Db = write("db" + std::to_string(++N) + ".json", C.Text);
    CommandResult R = run({"--capacity-db=" + Db, "--arch=sm_90", Good, "--"});
    EXPECT_EQ(R.Status, 2) << R.Out;
    EXPECT_HAS(R.Err, Db);
    EXPECT_HAS(R.Err, C.Expected);
  }
}

TEST_F(BadInputTest, CapacityDatabaseWithMissingKeys) {
  // A database that replaces the built-in one and knows only part of an
  // architecture: the kernels are reported, the checks that need a missing
  // figure say so or stay silent; a missing architecture is a usage error
  // naming the database.
  std::string Db = write("partial.json", R"({"replace": true, "architectures": {
    "sm_90": {"shared_memory": {"static_max": 49152}}}})");
  CommandResult R =
      run({"--capacity-db=" + Db, "--arch=sm_90", "--format=json", Good, "--"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  expectGoodIntact(R);
  R = run({"--capacity-db=" + Db, "--arch=sm_80", "--format=json", Good, "--"});
  EXPECT_EQ(R.Status, 2) << R.Err;
  EXPECT_HAS(R.Err, "sm_80");
  EXPECT_HAS(R.Err, Db);
}

//===-- Security: flags that load code, files written
//--------------------------===//

class BadInputSecurityTest : public BadInputTest {
protected:
  /// A shared object that creates \p Marker when loaded, built with the
  /// system's C compiler;
  /// "" when there is none (the flags then name a file that does not exist,
  /// which tilefit must not try to load either).
  std::string markerLibrary(const std::string &Marker) {
    std::string Src =
        write("plugin/marker.c",
              "#include <stdio.h>\n"
              "__attribute__((constructor)) static void mark(void) {\n"
              "  FILE *F = fopen(\"" +
                  Marker +
                  "\", \"w\");\n"
                  "  if (F) fclose(F);\n}\n");
    std::string So = Dir + "/plugin/marker.so";
    CommandResult R = runCommand({"cc", "-shared", "-fPIC", Src, "-o", So});
    return R.Status == 0 ? So : std::string();
  }
};

/// A file tree: each path, with its size and modification time for a file.
using Snapshot = std::map<std::string, std::string>;

Snapshot snapshot(const std::string &Root) {
  Snapshot S;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(It->path(), St, /*Follow=*/false))
      continue;
    // A folder's time changes with its entries, which are compared themselves.
    S[It->path()] =
        St.type() == llvm::sys::fs::file_type::directory_file
            ? std::string("folder")
            : std::to_string(St.getSize()) + " bytes, modified " +
                  std::to_string(
                      St.getLastModificationTime().time_since_epoch().count());
  }
  return S;
}

/// The paths added, removed or changed between \p Before and \p After, outside
/// \p Allowed (folders whose contents may change).
std::vector<std::string>
changesOutside(const Snapshot &Before, const Snapshot &After,
               const std::vector<std::string> &Allowed) {
  auto IsAllowed = [&](const std::string &P) {
    // Inside an allowed folder, or a folder made on the way to one.
    for (const std::string &A : Allowed)
      if (P == A || llvm::StringRef(P).starts_with(A + "/") ||
          llvm::StringRef(A).starts_with(P + "/"))
        return true;
    return false;
  };
  std::vector<std::string> Out;
  for (const auto &[P, V] : After) {
    auto It = Before.find(P);
    if ((It == Before.end() || It->second != V) && !IsAllowed(P))
      Out.push_back((It == Before.end() ? "added " : "changed ") + P);
  }
  for (const auto &[P, V] : Before)
    if (!After.count(P) && !IsAllowed(P))
      Out.push_back("removed " + P);
  return Out;
}

TEST_F(BadInputSecurityTest, FlagsThatLoadCodeAreNeverHonoured) {
  const std::string Marker = Dir + "/LOADED";
  std::string So = markerLibrary(Marker);
  if (So.empty())
    So = Dir +
         "/plugin/missing.so"; // no C compiler: a library that does not exist
  // Every spelling, directly, through a response file, an nvcc options file and
  // a Clang configuration file. Each unit is the good kernel; one tests
  // __CUDA_ARCH__, so that the host-side parse runs too.
  write("build/plugin.rsp",
        "-fplugin=" + So + " -Xclang -load -Xclang " + So + "\n");
  write("build/nvcc.opts", "-fplugin=" + So + " --load " + So + "\n");
  write("build/evil.cfg",
        "-fplugin=" + So + "\n-Xclang -load\n-Xclang " + So + "\n");
  std::string Host =
      write("src/host.cu", std::string(GoodKernel) +
                               "#ifndef __CUDA_ARCH__\n"
                               "void launch(float *o) { good<<<1, 64>>>(o); }\n"
                               "#endif\n");
  auto Q = [](const std::string &S) { return "\"" + S + "\", "; };
  std::vector<std::pair<std::string, std::string>> Cases = {
      {"xclang_load", Q("-Xclang") + Q("-load") + Q("-Xclang") + Q(So)},
      {"fplugin", Q("-fplugin=" + So) + Q("-fplugin-arg-marker-x")},
      {"fpass_plugin",
       Q("-fpass-plugin=" + So) + Q("-Xclang") + Q("-fpass-plugin=" + So)},
      {"xarch_device", Q("-Xarch_device") + Q("-fplugin=" + So)},
      {"mllvm", Q("-mllvm") + Q("-load=" + So) + Q("-Xclang") + Q("-mllvm") +
                    Q("-Xclang") + Q("-load=" + So)},
      {"response_file", Q("@" + Dir + "/build/plugin.rsp")},
      {"config_file", Q("--config=" + Dir + "/build/evil.cfg") + Q("--config") +
                          Q(Dir + "/build/evil.cfg")},
  };
  std::vector<std::string> Entries = {
      entry(Host, Q("-Xclang") + Q("-load") + Q("-Xclang") + Q(So))};
  for (const auto &[Name, Flags] : Cases)
    Entries.push_back(entry(write("src/" + Name + ".cu", GoodKernel), Flags));
  std::string Nvcc = write("src/nvcc.cu", GoodKernel);
  Entries.push_back("{\"directory\": \"" + Dir +
                    "/build\", \"command\": \"nvcc -arch=sm_80 "
                    "--options-file nvcc.opts -fplugin=" +
                    So + " -c " + Nvcc + "\", \"file\": \"" + Nvcc + "\"}");
  database(Entries);
  CommandResult R = run({"-p", Dir + "/build", "--format=json"});
  EXPECT_EQ(R.Status, 0) << R.Err;
  EXPECT_FALSE(llvm::sys::fs::exists(Marker)) << "tilefit loaded " << So;
  EXPECT_HAS(R.Err, "ignored flags that would load code into tilefit");
  for (const char *Refused :
       {"-Xclang -load", "-fplugin=", "-fpass-plugin=",
        "-Xclang -fpass-plugin=", "-Xarch_device -fplugin=", "-mllvm -load=",
        "-Xclang -mllvm -Xclang -load=", "--config=", "--config ", "--load "})
    EXPECT_HAS(R.Err, Refused);
  nlohmann::json J = json(R);
  EXPECT_EQ(J["kernels"].size(), Cases.size() + 3) << "every unit is analysed\n"
                                                   << R.Out;
  for (const auto &K : J["kernels"])
    EXPECT_EQ(K["static_smem_bytes"], 256) << K["file"];
  for (const auto &U : J["translation_units"])
    EXPECT_EQ(U["status"], "ok") << U.dump();
}

TEST_F(BadInputSecurityTest, WritesNothingOutsideItsOutputAndCacheFolders) {
  // A project in src/, its database in build/, HOME, XDG_CACHE_HOME, TMPDIR and
  // the working folder all in the test's folder. The database asks for every
  // kind of file Clang can write (dependency files, header lists, statistics,
  // time traces, diagnostic logs, serialized diagnostics), in the spellings
  // that pass any flag on.
  std::string Host = write(
      "src/host.cu", std::string("#include <cuda_runtime.h>\n") + GoodKernel +
                         "#ifndef __CUDA_ARCH__\n"
                         "void launch(float *o) { good<<<1, 64>>>(o); }\n"
                         "#endif\n");
  for (const char *D : {"home", "xdg", "tmp", "work", "out"})
    llvm::sys::fs::create_directories(Dir + "/" + D);
  auto Q = [](const std::string &S) { return "\"" + S + "\", "; };
  const std::string W = Dir + "/src/written";
  std::string Flags =
      Q("-MD") + Q("-MF") + Q(W + "1.d") + Q("--write-dependencies") +
      Q("-Wp,-MD," + W + "2.d") + Q("-Xclang") + Q("-dependency-file") +
      Q("-Xclang") + Q(W + "3.d") + Q("-Xclang") + Q("-MT") + Q("-Xclang") +
      Q("x") + Q("-Xpreprocessor") + Q("-dependency-file") +
      Q("-Xpreprocessor") + Q(W + "4.d") + Q("-Xpreprocessor") + Q("-MT") +
      Q("-Xpreprocessor") + Q("y") + Q("-serialize-diagnostics") +
      Q(W + "5.dia") + Q("-Xclang") + Q("-header-include-file") + Q("-Xclang") +
      Q(W + "6.txt") + Q("-H") + Q("-Xclang") +
      Q("-stats-file=" + W + "7.json") + Q("-ftime-trace=" + W + "8.json") +
      Q("-Xclang") + Q("-ftime-trace=" + W + "9.json") + Q("-Xclang") +
      Q("-diagnostic-log-file") + Q("-Xclang") + Q(W + "10.txt") +
      Q("-save-temps") + Q("-o") + Q(W + "11.o");
  database({entry(Host, Flags), entry(write("src/relative.cu", GoodKernel),
                                      Q("-MD") + Q("-MF") + Q("relative.d") +
                                          Q("-save-temps=cwd"))});
  RunOptions Opts;
  Opts.Cwd = Dir + "/work";
  Opts.Seconds = TimeLimitSeconds *
                 5; // the first run precompiles the CUDA runtime headers
  const char *Path = ::getenv("PATH");
  Opts.Env = std::vector<std::string>{
      "HOME=" + Dir + "/home", "XDG_CACHE_HOME=" + Dir + "/xdg",
      "TMPDIR=" + Dir + "/tmp",
      std::string("PATH=") + (Path ? Path : "/usr/bin:/bin")};
  auto Run = [&](std::vector<std::string> Args,
                 const std::vector<std::string> &Allowed) {
    Snapshot Before = snapshot(Dir);
    Args.insert(Args.begin(),
                {binary(), "-p", Dir + "/build", "--format=json"});
    CommandResult R = runCommand(Args, Opts);
    EXPECT_FALSE(R.TimedOut);
    EXPECT_EQ(R.Status, 0) << R.Err;
    EXPECT_EQ(changesOutside(Before, snapshot(Dir), Allowed),
              std::vector<std::string>{});
    return R;
  };
  // The default cache folder ($XDG_CACHE_HOME/tilefit), twice (a miss, then a
  // hit).
  Run({}, {Dir + "/xdg/tilefit"});
  Run({}, {Dir + "/xdg/tilefit"});
  EXPECT_TRUE(llvm::sys::fs::is_directory(Dir + "/xdg/tilefit"));
  // Without XDG_CACHE_HOME: ~/.cache/tilefit.
  Opts.Env->erase(Opts.Env->begin() + 1);
  Run({}, {Dir + "/home/.cache/tilefit"});
  // --cache-dir, and a report written with -o.
  Run({"--cache-dir=" + Dir + "/mine", "-o", Dir + "/out/report.json"},
      {Dir + "/mine", Dir + "/out/report.json"});
  // --no-cache: nothing but the report.
  Run({"--no-cache", "-o", Dir + "/out/report2.json"},
      {Dir + "/out/report2.json"});
}

} // namespace
} // namespace test
} // namespace tilefit
