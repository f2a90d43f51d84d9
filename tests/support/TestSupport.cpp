//===- TestSupport.cpp ----------------------------------------------------===//
#include "TestSupport.h"

#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/model/ReportJson.h"

#include <nlohmann/json.hpp>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

namespace tilefit {
namespace test {

std::string sourceDir() { return TILEFIT_SOURCE_DIR; }
std::string fixturesDir() { return sourceDir() + "/tests/fixtures"; }
std::string shareDir() { return TILEFIT_SHARE_DIR; }
std::string binary() { return TILEFIT_BINARY; }

const CapacityDatabase &builtinDatabase() {
  static const CapacityDatabase *DB = [] {
    auto Loaded = CapacityDatabase::load(sourceDir() + "/data/capacity.json");
    if (!Loaded) {
      ADD_FAILURE() << Loaded.error();
      std::abort();
    }
    return new CapacityDatabase(std::move(*Loaded));
  }();
  return *DB;
}

const frontend::ParseEnvironment &environmentWithoutPch() {
  static const frontend::ParseEnvironment Env = [] {
    frontend::ParseEnvironment E;
    std::string Error;
    E.Toolkit = frontend::findCudaToolkit("", Error);
    E.ResourceInclude = shareDir() + "/include";
    E.ClangResourceDir = TILEFIT_CLANG_RESOURCE_DIR;
    return E;
  }();
  return Env;
}

const frontend::ParseEnvironment &environment() {
  static frontend::HeaderPchStore Store(TILEFIT_TEST_PCH_DIR);
  static const frontend::ParseEnvironment Env = [] {
    frontend::ParseEnvironment E = environmentWithoutPch();
    E.Pch = &Store;
    // Each fixture is parsed alone: its own leading #include lines are
    // precompiled too, so that the twin tests compare those parses with plain
    // ones (in a project, the lines two units share are).
    E.PrecompileSoleIncludes = true;
    return E;
  }();
  return Env;
}

std::vector<TranslationUnitFacts>
parseFile(const std::string &File, const std::vector<std::string> &Flags,
          const std::vector<std::string> &Archs,
          const frontend::ParseEnvironment &Env) {
  frontend::CompileCommand C;
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  C.File = std::string(Abs);
  C.Directory = std::string(llvm::sys::path::parent_path(Abs));
  C.Arguments.push_back("clang++");
  C.Arguments.insert(C.Arguments.end(), Flags.begin(), Flags.end());
  C.Arguments.push_back(C.File);
  return frontend::parseAll(frontend::planJobs({C}, Archs), Env, 1);
}

Report analyzeFile(const std::string &File,
                   const std::vector<std::string> &Flags,
                   const std::vector<std::string> &Archs,
                   const CapacityDatabase &Db, double Budget) {
  auto Facts = parseFile(File, Flags, Archs, environment());
  Report R;
  AnalysisOptions Opts;
  Opts.Budget = Budget;
  for (const TranslationUnitFacts &TU : Facts)
    analyzeUnit(TU, Db, Opts, R);
  finalizeReport(R);
  return R;
}

static std::vector<std::string> slicingDifferences(nlohmann::json A,
                                                   nlohmann::json B);

std::vector<std::string>
slicingDifferences(const std::vector<TranslationUnitFacts> &Sliced,
                   const std::vector<TranslationUnitFacts> &Whole,
                   const CapacityDatabase &Db) {
  auto Render = [&](const std::vector<TranslationUnitFacts> &Facts) {
    Report R;
    AnalysisOptions Opts;
    for (const TranslationUnitFacts &TU : Facts)
      analyzeUnit(TU, Db, Opts, R);
    finalizeReport(R);
    std::ostringstream OS;
    renderJson(R, ToolInfo(), OS);
    return OS.str();
  };
  return slicingDifferences(Render(Sliced), Render(Whole));
}

std::vector<std::string> slicingDifferences(const std::string &SlicedJson,
                                            const std::string &WholeJson) {
  nlohmann::json A = nlohmann::json::parse(SlicedJson, nullptr, false);
  nlohmann::json B = nlohmann::json::parse(WholeJson, nullptr, false);
  if (A.is_discarded() || B.is_discarded())
    return {"a report is not JSON"};
  return slicingDifferences(std::move(A), std::move(B));
}

static std::vector<std::string> slicingDifferences(nlohmann::json A,
                                                   nlohmann::json B) {
  std::vector<std::string> Out;
  if (A["kernels"].size() != B["kernels"].size()) {
    Out.push_back("sliced: " + std::to_string(A["kernels"].size()) +
                  " kernels, whole: " + std::to_string(B["kernels"].size()));
    return Out;
  }
  std::set<std::pair<std::string, std::string>> Uncounted;
  for (size_t I = 0; I < A["kernels"].size(); ++I) {
    nlohmann::json &KA = A["kernels"][I], &KB = B["kernels"][I];
    const nlohmann::json &Why = KA["registers"]["unknown_reason"];
    if (Why.is_string() && Why.get<std::string>().find("--no-body-slicing") !=
                               std::string::npos) {
      Uncounted.insert({KA.value("name", ""), KA.value("arch", "")});
      KA.erase("registers");
      KB.erase("registers");
    }
    if (KA != KB)
      Out.push_back("kernel " + KA.value("name", "") + " on " +
                    KA.value("arch", "") + ":\n  sliced: " + KA.dump() +
                    "\n  whole:  " + KB.dump());
  }
  auto Findings = [&](const nlohmann::json &J) {
    std::vector<std::string> F;
    for (const nlohmann::json &D : J["diagnostics"])
      if (!(D.value("check", "") == "tilefit-registers" &&
            Uncounted.count({D.value("kernel", ""), D.value("arch", "")})))
        F.push_back(D.dump());
    return F;
  };
  std::vector<std::string> FA = Findings(A), FB = Findings(B);
  if (FA != FB) {
    std::string Text = "findings differ:\n  sliced:";
    for (const std::string &F : FA)
      Text += "\n    " + F;
    Text += "\n  whole:";
    for (const std::string &F : FB)
      Text += "\n    " + F;
    Out.push_back(Text);
  }
  return Out;
}

CommandResult runCommand(const std::vector<std::string> &Argv,
                         const std::string &Cwd) {
  RunOptions Opts;
  Opts.Cwd = Cwd;
  return runCommand(Argv, Opts);
}

CommandResult runCommand(const std::vector<std::string> &Argv,
                         const RunOptions &Opts) {
  CommandResult R;
  llvm::SmallString<128> OutFile, ErrFile;
  llvm::sys::fs::createTemporaryFile("tilefit-test", "out", OutFile);
  llvm::sys::fs::createTemporaryFile("tilefit-test", "err", ErrFile);
  std::vector<llvm::StringRef> Args(Argv.begin(), Argv.end());
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, llvm::StringRef(OutFile), llvm::StringRef(ErrFile)};
  std::string Program = Argv.front();
  if (!llvm::sys::path::is_absolute(Program))
    if (auto Found = llvm::sys::findProgramByName(Program))
      Program = *Found;
  std::optional<llvm::ArrayRef<llvm::StringRef>> Env;
  std::vector<llvm::StringRef> EnvRefs;
  if (Opts.Env) {
    EnvRefs.assign(Opts.Env->begin(), Opts.Env->end());
    Env = EnvRefs;
  }
  std::string Error;
  if (Opts.Cwd.empty()) {
    R.Status = llvm::sys::ExecuteAndWait(Program, Args, Env, Redirects,
                                         Opts.Seconds, 0, &Error);
  } else {
    // ExecuteAndWait has no working-directory option: go through env -C (which
    // execs the program, so that a time-out kills the program itself).
    std::vector<llvm::StringRef> Wrapped = {"env", "-C", Opts.Cwd};
    Wrapped.push_back(Program);
    Wrapped.insert(Wrapped.end(), Args.begin() + 1, Args.end());
    R.Status =
        llvm::sys::ExecuteAndWait(*llvm::sys::findProgramByName("env"), Wrapped,
                                  Env, Redirects, Opts.Seconds, 0, &Error);
  }
  // ExecuteAndWait kills the child and returns -2 when the time runs out.
  R.TimedOut = R.Status == -2 && Error.find("timed out") != std::string::npos;
  if (auto B = llvm::MemoryBuffer::getFile(OutFile))
    R.Out = (*B)->getBuffer().str();
  if (auto B = llvm::MemoryBuffer::getFile(ErrFile))
    R.Err = (*B)->getBuffer().str() + Error;
  llvm::sys::fs::remove(OutFile);
  llvm::sys::fs::remove(ErrFile);
  return R;
}

void TempDirTest::SetUp() {
  llvm::SmallString<128> D;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tilefit-test", D));
  Dir = std::string(D);
}

void TempDirTest::TearDown() { llvm::sys::fs::remove_directories(Dir); }

std::string TempDirTest::write(const std::string &Name,
                               const std::string &Text) {
  std::string P = Dir + "/" + Name;
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
  std::error_code EC;
  llvm::raw_fd_ostream OS(P, EC);
  EXPECT_FALSE(EC) << P << ": " << EC.message();
  OS << Text;
  return P;
}

void TempDirTest::rewrite(const std::string &Path, const std::string &Text) {
  write(Path.substr(Dir.size() + 1), Text);
  llvm::sys::fs::file_status S;
  ASSERT_FALSE(llvm::sys::fs::status(Path, S));
  int FD;
  ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
      Path, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
  llvm::sys::fs::setLastAccessAndModificationTime(
      FD, S.getLastModificationTime() + std::chrono::seconds(2));
  llvm::sys::fs::closeFile(FD);
}

std::string fixtureTestName(const ::testing::TestParamInfo<std::string> &Info) {
  std::string Name = llvm::sys::path::stem(Info.param).str();
  for (char &C : Name)
    if (!isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return Name;
}

bool haveNvcc() {
  return static_cast<bool>(llvm::sys::findProgramByName("nvcc"));
}

namespace {

/// One nvcc run for \p Archs; adds what ptxas printed to \p P. Returns nvcc's
/// status.
int ptxasRun(const std::string &File, const std::vector<std::string> &Flags,
             const std::vector<std::string> &Archs, PtxasFigures &P,
             std::string &Err) {
  std::vector<std::string> Argv = {
      "nvcc",      "-c",      File, "-o",
      "/dev/null", "-Xptxas", "-v", "-Wno-deprecated-gpu-targets"};
  for (const std::string &A : Archs) {
    std::string N = A.substr(3);
    Argv.push_back("-gencode");
    Argv.push_back("arch=compute_" + N + ",code=" + A);
  }
  Argv.insert(Argv.end(), Flags.begin(), Flags.end());
  CommandResult R = runCommand(Argv);
  parsePtxasOutput(R.Out + R.Err, P);
  Err = R.Err;
  return R.Status;
}

} // namespace

void parsePtxasOutput(const std::string &Text, PtxasFigures &P) {
  static const std::regex Entry(
      R"(Compiling entry function '([^']+)' for '(sm_\w+)')");
  static const std::regex Used(R"(Used (\d+) registers)");
  static const std::regex Properties(R"(Function properties for (\S+))");
  static const std::regex Frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores)");
  static const std::regex Smem(R"((\d+) bytes smem)");
  static const std::regex Module(R"(\d+ bytes gmem)");
  static const std::regex Cmem3(R"((\d+) bytes cmem\[3\])");
  static const std::regex TooMuch(
      R"(too much global constant data \((0x[0-9a-fA-F]+) bytes)");
  std::string Name, Arch, PropertiesOf;
  std::map<std::string, PtxasFigures::Resources> Pending;
  // Each module's figure comes before its first entry function, which names the
  // architecture.
  std::optional<uint64_t> ModuleConstant, ErrorConstant;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string::npos)
      End = Text.size();
    std::string Line = Text.substr(Pos, End - Pos);
    Pos = End + 1;
    std::smatch M;
    if (std::regex_search(Line, M, TooMuch)) {
      ErrorConstant = std::stoull(std::string(M[1]), nullptr, 16);
    } else if (std::regex_search(Line, Module)) {
      ModuleConstant = std::regex_search(Line, M, Cmem3)
                           ? std::optional<uint64_t>(std::stoull(M[1]))
                           : ErrorConstant;
      ErrorConstant.reset();
    } else if (std::regex_search(Line, M, Entry)) {
      Name = M[1];
      Arch = M[2];
      if (ModuleConstant)
        P.ConstantBytes[Arch] = *ModuleConstant;
      ModuleConstant.reset();
    } else if (std::regex_search(Line, M, Properties)) {
      PropertiesOf = M[1];
    } else if (!PropertiesOf.empty() && std::regex_search(Line, M, Frame)) {
      Pending[PropertiesOf].StackFrame = std::stoull(M[1]);
      Pending[PropertiesOf].SpillStores = std::stoull(M[2]);
      PropertiesOf.clear();
    } else if (!Name.empty() && std::regex_search(Line, M, Used)) {
      PtxasFigures::Resources Res = Pending[Name];
      Res.Registers = std::stoull(M[1]);
      P.KernelResources[Arch][Name] = Res;
      uint64_t Bytes = std::regex_search(Line, M, Smem) ? std::stoull(M[1]) : 0;
      P.Figures[Arch][Name] = Bytes;
      Name.clear();
    }
  }
}

bool relocatableDeviceCode(const std::vector<std::string> &Flags) {
  for (size_t I = 0; I < Flags.size(); ++I) {
    const std::string &F = Flags[I];
    if (F == "-rdc=true" || F == "--relocatable-device-code=true" ||
        F == "-dc" || F == "--device-c" ||
        ((F == "-rdc" || F == "--relocatable-device-code") &&
         I + 1 < Flags.size() && Flags[I + 1] == "true"))
      return true;
  }
  return false;
}

namespace {
/// With -rdc: the figures nvlink gives each kernel when it links the device
/// code (`nvcc -dlink -Xnvlink -v`: "Function properties for 'k':", then "...
/// N bytes smem"), one architecture at a time (nvlink does not say which).
/// On the sm_90 family nvlink counts the 1 KiB the driver reserves per block
/// in the kernel's figure; ptxas and tilefit do not, so it is taken off.
void linkedFigures(const std::string &File,
                   const std::vector<std::string> &Flags,
                   const std::vector<std::string> &Archs, PtxasFigures &P) {
  for (const std::string &A : Archs) {
    llvm::SmallString<128> Obj, Linked;
    if (llvm::sys::fs::createTemporaryFile("tilefit-rdc", "o", Obj) ||
        llvm::sys::fs::createTemporaryFile("tilefit-dlink", "o", Linked)) {
      P.Error += "cannot create a temporary file for the device link\n";
      return;
    }
    const std::string Code =
        "arch=compute_" + A.substr(3) + ",code=" + A;
    std::vector<std::string> Compile = {"nvcc", "-c", File, "-o",
                                        std::string(Obj), "-gencode", Code,
                                        "-Wno-deprecated-gpu-targets"};
    Compile.insert(Compile.end(), Flags.begin(), Flags.end());
    CommandResult C = runCommand(Compile);
    CommandResult L;
    if (C.Status == 0)
      L = runCommand({"nvcc", "-dlink", std::string(Obj), "-o",
                      std::string(Linked), "-gencode", Code, "-Xnvlink", "-v",
                      "-Wno-deprecated-gpu-targets"});
    llvm::sys::fs::remove(Obj);
    llvm::sys::fs::remove(Linked);
    // A unit that names device symbols defined elsewhere (`extern
    // __constant__`) links only with them: its kernels keep ptxas's figures.
    if (C.Status == 0 && L.Status != 0 &&
        (L.Out + L.Err).find("Undefined reference") != std::string::npos) {
      P.Unlinked = true;
      continue;
    }
    if (C.Status != 0 || L.Status != 0) {
      P.Error += "the device link failed for " + A + ":\n" + C.Err + L.Err;
      continue;
    }
    static const std::regex Props(R"(Function properties for '([^']+)')");
    static const std::regex Smem(R"((\d+) bytes smem)");
    const std::string Text = L.Out + L.Err;
    const uint64_t Reserve = A.rfind("sm_90", 0) == 0 ? 1024 : 0;
    std::string Name;
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    llvm::StringRef(Text).split(Lines, '\n');
    for (llvm::StringRef Each : Lines) {
      const std::string Line = Each.str();
      std::smatch M;
      if (std::regex_search(Line, M, Props)) {
        Name = M[1];
      } else if (!Name.empty() && std::regex_search(Line, M, Smem)) {
        uint64_t Bytes = std::stoull(M[1]);
        // Only kernels ptxas compiled from this file (cudadevrt's own are
        // linked in too).
        auto &Ours = P.Figures[A];
        if (Ours.count(Name))
          Ours[Name] = Bytes >= Reserve ? Bytes - Reserve : Bytes;
        Name.clear();
      }
    }
  }
  P.Linked = !P.Unlinked;
}
} // namespace

PtxasFigures ptxasFigures(const std::string &File,
                          const std::vector<std::string> &Flags,
                          const std::vector<std::string> &Archs) {
  PtxasFigures P = ptxasFiguresPerObject(File, Flags, Archs);
  if (P.Error.empty() && relocatableDeviceCode(Flags))
    linkedFigures(File, Flags, Archs, P);
  return P;
}

PtxasFigures ptxasFiguresPerObject(const std::string &File,
                                   const std::vector<std::string> &Flags,
                                   const std::vector<std::string> &Archs) {
  PtxasFigures P;
  std::string Err;
  if (ptxasRun(File, Flags, Archs, P, Err) == 0)
    return P;
  // nvcc stops at the first architecture ptxas rejects (a kernel above the
  // static limit still gets its figure printed): compile the others one at a
  // time.
  for (const std::string &A : Archs)
    if (!P.Figures.count(A))
      ptxasRun(File, Flags, {A}, P, Err);
  for (const std::string &A : Archs)
    if (!P.Figures.count(A))
      P.Error += "nvcc failed for " + A + ":\n" + Err;
  return P;
}

} // namespace test
} // namespace tilefit
