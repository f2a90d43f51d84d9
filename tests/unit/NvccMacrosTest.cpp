//===- NvccMacrosTest.cpp - The parse predefines what nvcc predefines ----===//
//
// Code chooses its paths on nvcc's predefined macros (`#if __CUDACC_VER_MAJOR__
// >= 12`,
// `#ifdef __CUDACC_RELAXED_CONSTEXPR__`, `__CUDA_ARCH_FEAT_SM90_ALL`): a macro
// the parse lacks can compile a kernel out, silently. nvcc's --dryrun shows the
// macros it defines for its device- and host-side preprocessing of a unit; for
// each architecture and set of flags below, the device- and host-side parses of
// tilefit define each of them with nvcc's value, except the macros README.md
// names, with the reason, between its `nvcc-macro-differences` markers.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/Parse.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace tilefit {
namespace test {
namespace {

using Macros = std::map<std::string, std::string>;

/// `-DNAME` is NAME=1, `-DNAME=V` is NAME=V.
void addDefine(llvm::StringRef Token, Macros &Out) {
  Token.consume_front("-D");
  auto [Name, Value] = Token.split('=');
  if (!Name.empty())
    Out[Name.str()] = Token.contains('=') ? Value.str() : "1";
}

/// The macros nvcc's --dryrun defines for its preprocessing of the unit: the
/// host side's, and the device side's for \p CudaArch (the last such pass: for
/// `sm_90a`, the arch-specific one).
struct NvccPasses {
  Macros Host, Device;
  std::string Error;
};

NvccPasses nvccDefines(const std::string &Nvcc,
                       const std::vector<std::string> &Flags,
                       const std::string &Dir, unsigned CudaArch) {
  NvccPasses P;
  const std::string Unit = Dir + "/empty.cu", Out = Dir + "/dryrun.txt",
                    Object = Dir + "/empty.o";
  // The strings outlive the references to them.
  std::vector<std::string> Words = {Nvcc, "--dryrun"};
  Words.insert(Words.end(), Flags.begin(), Flags.end());
  Words.insert(Words.end(), {"-c", Unit, "-o", Object});
  std::vector<llvm::StringRef> Args(Words.begin(), Words.end());
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, llvm::StringRef(Out), llvm::StringRef(Out)};
  std::string Msg;
  if (llvm::sys::ExecuteAndWait(Nvcc, Args, std::nullopt, Redirects, 120, 0,
                                &Msg) != 0) {
    P.Error = "nvcc --dryrun failed: " + Msg;
    return P;
  }
  auto Text = llvm::MemoryBuffer::getFile(Out);
  if (!Text) {
    P.Error = "no --dryrun output";
    return P;
  }
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Text)->getBuffer().split(Lines, '\n');
  const std::string ArchDefine = "-D__CUDA_ARCH__=" + std::to_string(CudaArch);
  for (llvm::StringRef Line : Lines) {
    // nvcc's preprocessing passes run the host compiler with -E.
    if (!Line.starts_with("#$ ") || !Line.contains(" -E ") ||
        Line.contains("cicc"))
      continue;
    Macros M;
    llvm::SmallVector<llvm::StringRef, 0> Tokens;
    Line.split(Tokens, ' ', -1, false);
    bool Device = false;
    for (llvm::StringRef T : Tokens) {
      if (!T.starts_with("-D"))
        continue;
      Device |= T.starts_with("-D__CUDA_ARCH__=");
      if (T.starts_with("-D__CUDA_ARCH__=") && T != ArchDefine)
        M.clear(); // Another architecture's pass.
      addDefine(T, M);
    }
    if (!Device)
      P.Host = M;
    else if (M.count("__CUDA_ARCH__"))
      P.Device = M;
  }
  if (P.Host.empty() || P.Device.empty())
    P.Error =
        "no host- and device-side preprocessing in nvcc --dryrun's output";
  return P;
}

/// Collects the macros defined at the end of the main file.
class MacroAction : public clang::PreprocessOnlyAction {
public:
  explicit MacroAction(Macros &Out) : Out(Out) {}

protected:
  void EndSourceFileAction() override {
    clang::Preprocessor &PP = getCompilerInstance().getPreprocessor();
    for (const auto &[Id, State] : PP.macros()) {
      const clang::MacroInfo *MI = PP.getMacroInfo(Id);
      if (!MI || MI->isFunctionLike())
        continue;
      std::string Value;
      for (const clang::Token &T : MI->tokens())
        Value += (Value.empty() ? "" : " ") + PP.getSpelling(T);
      Out[Id->getName().str()] = Value;
    }
  }

private:
  Macros &Out;
};

class MacroFactory : public clang::tooling::FrontendActionFactory {
public:
  explicit MacroFactory(Macros &Out) : Out(Out) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<MacroAction>(Out);
  }

private:
  Macros &Out;
};

/// The macros of tilefit's parse of \p Job, device or host side.
Macros parseMacros(const frontend::UnitJob &Job,
                   const frontend::ParseEnvironment &Env, bool HostSide) {
  std::vector<std::string> Args =
      frontend::parseCommandLine(Job, Env, HostSide);
  for (std::string &A : Args)
    if (A == "-fsyntax-only")
      A = "-E";
  Macros Out;
  MacroFactory Factory(Out);
  llvm::IntrusiveRefCntPtr<clang::FileManager> Files(
      new clang::FileManager(clang::FileSystemOptions()));
  clang::tooling::ToolInvocation Invocation(
      Args, &Factory, Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  clang::IgnoringDiagConsumer Quiet;
  Invocation.setDiagnosticConsumer(&Quiet);
  EXPECT_TRUE(Invocation.run()) << "the parse's preprocessing failed";
  return Out;
}

/// The macro names README.md lists as known differences: `NAME` in backticks at
/// the start of a bullet between its markers.
std::set<std::string> listedDifferences() {
  std::set<std::string> Names;
  auto Readme = llvm::MemoryBuffer::getFile(sourceDir() + "/README.md");
  if (!Readme)
    return Names;
  llvm::StringRef Text = (*Readme)->getBuffer();
  size_t Begin = Text.find("<!-- nvcc-macro-differences -->");
  size_t End = Text.find("<!-- /nvcc-macro-differences -->");
  if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos)
    return Names;
  std::string Section = Text.slice(Begin, End).str();
  std::regex Bullet(R"(\n- `(\w+)`[^\n]*\S)");
  for (auto It = std::sregex_iterator(Section.begin(), Section.end(), Bullet);
       It != std::sregex_iterator(); ++It)
    Names.insert((*It)[1]);
  return Names;
}

struct Case {
  const char *Name;
  std::vector<std::string> Flags;
  const char *Arch; ///< The job of this architecture is compared.
};

const Case Cases[] = {
    {"Default", {}, "sm_75"},
    {"Sm80WithFlags",
     {"-arch=sm_80", "--expt-relaxed-constexpr", "--extended-lambda", "-G",
      "-rdc=true", "--default-stream", "per-thread",
      "-allow-unsupported-compiler", "-std=c++17"},
     "sm_80"},
    {"Sm90a", {"-arch=sm_90a"}, "sm_90a"},
    {"Sm100a", {"-arch=sm_100a", "-dlto"}, "sm_100a"},
    {"Sm120", {"-arch=sm_120"}, "sm_120"},
    {"TwoGencodes",
     {"-gencode", "arch=compute_80,code=sm_80", "-gencode",
      "arch=compute_90,code=sm_90"},
     "sm_90"},
};

class NvccMacrosTest : public TempDirTest,
                       public ::testing::WithParamInterface<Case> {};

TEST_P(NvccMacrosTest, SameAsNvccOrListed) {
  const frontend::ParseEnvironment &Env = environmentWithoutPch();
  const std::string Nvcc = Env.Toolkit.Path + "/bin/nvcc";
  if (!Env.Toolkit.found() || !llvm::sys::fs::can_execute(Nvcc))
    GTEST_SKIP()
        << "no CUDA toolkit with nvcc: nothing to compare the macros with";
  const Case &C = GetParam();
  const std::string Unit = write("empty.cu", "\n");

  frontend::CompileCommand Cmd;
  Cmd.Directory = Dir;
  Cmd.File = Unit;
  Cmd.Arguments = {"nvcc"};
  Cmd.Arguments.insert(Cmd.Arguments.end(), C.Flags.begin(), C.Flags.end());
  Cmd.Arguments.insert(Cmd.Arguments.end(), {"-c", Unit});
  const frontend::UnitJob *Job = nullptr;
  std::vector<frontend::UnitJob> Jobs = frontend::planJobs({Cmd}, {});
  for (const frontend::UnitJob &J : Jobs)
    if (J.Target.Real == C.Arch)
      Job = &J;
  ASSERT_NE(Job, nullptr) << "no job for " << C.Arch;

  NvccPasses Nv = nvccDefines(Nvcc, C.Flags, Dir, Job->Target.CudaArch);
  ASSERT_TRUE(Nv.Error.empty()) << Nv.Error;
  const std::set<std::string> Listed = listedDifferences();
  ASSERT_FALSE(Listed.empty())
      << "README.md lists no macro differences between its markers";

  for (bool Host : {false, true}) {
    const Macros &Want = Host ? Nv.Host : Nv.Device;
    const Macros Have = parseMacros(*Job, Env, Host);
    ASSERT_TRUE(Have.count("__CUDA__")) << "not a CUDA parse";
    for (const auto &[Name, Value] : Want) {
      auto It = Have.find(Name);
      const std::string Got = It == Have.end() ? "(undefined)" : It->second;
      auto Tight = [](std::string S) {
        S.erase(std::remove(S.begin(), S.end(), ' '), S.end());
        return S;
      };
      if (Tight(Got) == Tight(Value) || Listed.count(Name))
        continue;
      ADD_FAILURE() << (Host ? "host" : "device") << " side: nvcc defines "
                    << Name << "=" << Value << ", tilefit's parse " << Got
                    << " (define it, or list it in README.md with the reason)";
    }
  }
}

// Each listed difference is one still: a macro the parse has come to define as
// nvcc does is taken off the list.
TEST(NvccMacros, TheListHoldsOnlyRealDifferences) {
  const frontend::ParseEnvironment &Env = environmentWithoutPch();
  if (!Env.Toolkit.found())
    GTEST_SKIP() << "no CUDA toolkit";
  frontend::CompileCommand Cmd;
  Cmd.Directory = TILEFIT_SOURCE_DIR;
  Cmd.File = sourceDir() + "/tests/fixtures/layout/padded_tiles.cu";
  Cmd.Arguments = {"nvcc", "-arch=sm_90", "-c", Cmd.File};
  std::vector<frontend::UnitJob> Jobs = frontend::planJobs({Cmd}, {});
  ASSERT_EQ(Jobs.size(), 1u);
  const Macros Device = parseMacros(Jobs[0], Env, false);
  for (const std::string &Name : listedDifferences())
    EXPECT_EQ(Device.count(Name), 0u)
        << Name << " is listed as a difference and defined";
}

INSTANTIATE_TEST_SUITE_P(Flags, NvccMacrosTest, ::testing::ValuesIn(Cases),
                         [](const ::testing::TestParamInfo<Case> &I) {
                           return I.param.Name;
                         });

} // namespace
} // namespace test
} // namespace tilefit
