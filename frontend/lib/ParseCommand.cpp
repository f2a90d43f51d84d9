//===- ParseCommand.cpp - The command line and files of a parse -----------===//
#include "ParseCommand.h"

#include "SourceFixups.h"

#include "tilefit/model/Arch.h"
#include "tilefit/model/Checks.h"

#include "clang/Basic/Cuda.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <set>

namespace tilefit {
namespace frontend {
namespace {

/// The error of opening something that is not a regular file.
class NotRegularCategory : public std::error_category {
  const char *name() const noexcept override { return "tilefit"; }
  std::string message(int) const override {
    return "not a regular file (tilefit reads no FIFO or device)";
  }
};
std::error_code notRegularFile() {
  static const NotRegularCategory Category;
  return std::error_code(1, Category);
}

/// The disk, where only regular files can be opened: opening a FIFO blocks
/// until something writes to it, and reading a device such as /dev/zero never
/// ends. A source or an #include naming one is then Clang's "cannot open file"
/// error, never a hang.
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override {
    llvm::ErrorOr<llvm::vfs::Status> S = status(Path);
    if (!S)
      return S.getError();
    if (S->getType() != llvm::sys::fs::file_type::regular_file)
      return notRegularFile();
    return ProxyFileSystem::openFileForRead(Path);
  }
};

/// `-D__CUDACC_VER_MAJOR__=13` and the rest, from the toolkit's version (as
/// nvcc defines them: major, minor and nvcc's build, and the runtime API's
/// major and minor).
std::vector<std::string> nvccVersionMacros(const CudaToolkit &TK) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  llvm::StringRef(TK.NvccVersion.empty() ? TK.Version : TK.NvccVersion)
      .split(Parts, '.');
  if (Parts.size() < 2)
    return {};
  std::vector<std::string> Out = {"-D__CUDACC_VER_MAJOR__=" + Parts[0].str(),
                                  "-D__CUDACC_VER_MINOR__=" + Parts[1].str()};
  if (Parts.size() > 2)
    Out.push_back("-D__CUDACC_VER_BUILD__=" + Parts[2].str());
  Out.push_back("-D__CUDA_API_VER_MAJOR__=" + Parts[0].str());
  Out.push_back("-D__CUDA_API_VER_MINOR__=" + Parts[1].str());
  return Out;
}

std::string join(const std::vector<unsigned> &V) {
  std::string S;
  for (unsigned X : V)
    S += (S.empty() ? "" : ",") + std::to_string(X);
  return S;
}

/// Adds to \p Args the CUDA headers a parse reads: the toolkit's, with nvcc's
/// macros and tilefit's compatibility header over them, or tilefit's prelude
/// without a toolkit.
void addCudaHeaderArgs(std::vector<std::string> &Args,
                       const ParseEnvironment &Env, bool HostSide) {
  const CudaToolkit &TK = Env.Toolkit;
  if (TK.found()) {
    Args.push_back("--cuda-path=" + TK.Path);
    const std::string Inc = TK.Path + "/include";
    // CUDA 13 moved CCCL (cub, thrust, cuda/) under include/cccl.
    if (TK.HasCccl) {
      Args.push_back("-isystem");
      Args.push_back(Inc + "/cccl");
    }
    // CUDA 13 dropped headers Clang 19's CUDA wrapper still includes
    // (texture_fetch_functions.h, surface_functions.h); tilefit ships empty
    // stand-ins, searched after every other folder so that the toolkit's own
    // headers of the same names (texture_indirect_functions.h) win.
    Args.push_back("-idirafter");
    Args.push_back(Env.ResourceInclude + "/cuda-compat");
    Args.push_back("-Wno-unknown-cuda-version");
    // nvcc's version macros, which code tests to enable what a toolkit supports
    // (`#if __CUDACC_VER_MAJOR__ >= 12`: CUTLASS's SM90 paths, say). Clang
    // defines none of them; the toolkit's headers read them only under nvcc or
    // NVRTC (__NVCC__, __CUDACC_RTC__, which tilefit leaves undefined), CCCL
    // takes Clang's version from CUDA_VERSION.
    for (const std::string &Define : nvccVersionMacros(TK))
      Args.push_back(Define);
    // The rest of what nvcc defines in every pass (its --dryrun): pragma and
    // atomic built-in support (the built-ins are the compatibility header's),
    // and the device side's math. Not __NVCC__: the toolkit's headers (CCCL,
    // <nv/target>) would take nvcc's code paths, which Clang does not parse;
    // README.md, "Limits", says so.
    Args.push_back("-D__NVCC_DIAG_PRAGMA_SUPPORT__=1");
    if (Env.NvccCompatibility)
      Args.push_back("-D__CUDACC_DEVICE_ATOMIC_BUILTINS__=1");
    if (!HostSide)
      Args.push_back("-DCUDA_DOUBLE_MATH_FUNCTIONS");
    // A toolkit newer than Clang knows (CUDA 13 for Clang 19) leaves Clang
    // without an SDK version, and it then expects the pre-9.2 launch API
    // (cudaConfigureCall) for `<<<>>>`.
    if (clang::CudaStringToVersion(TK.Version) == clang::CudaVersion::UNKNOWN) {
      Args.push_back("-Xclang");
      Args.push_back(
          std::string("-target-sdk-version=") +
          clang::CudaVersionToString(clang::CudaVersion::PARTIALLY_SUPPORTED));
    }
  } else {
    // No toolkit: keywords, builtin variables and vector types from tilefit's
    // prelude.
    Args.push_back("-nocudainc");
    Args.push_back("-include");
    Args.push_back(Env.ResourceInclude + "/tilefit/cuda_prelude.h");
  }
  // What nvcc's headers declare and Clang's lack (cache-hinted loads, host
  // min/max, surface functions): resources/include/tilefit/cuda_compat.h, over
  // the toolkit's headers.
  if (TK.found() && Env.NvccCompatibility) {
    Args.push_back("-include");
    Args.push_back(Env.ResourceInclude + "/tilefit/cuda_compat.h");
  }
}

/// Adds to \p Args nvcc's architecture macros for \p Job's target, parsed as
/// \p ClangArch: __CUDA_ARCH_LIST__, __CUDA_ARCH__ and the feature macros.
void addArchMacroArgs(std::vector<std::string> &Args, const UnitJob &Job,
                      const std::string &ClangArch, bool HostSide) {
  // nvcc's macros that Clang does not define, and the target's own
  // __CUDA_ARCH__ when Clang parses it as another architecture.
  Args.push_back("-D__CUDA_ARCH_LIST__=" + join(Job.ArchList));
  auto Real = parseArch(Job.Target.Real);
  if (HostSide) {
    // Host code sees no __CUDA_ARCH__; nothing else to set.
  } else if (ClangArch != Job.Target.Real || !Real ||
             Real->cudaArchMacro() != Job.Target.CudaArch) {
    Args.push_back("-U__CUDA_ARCH__");
    Args.push_back("-D__CUDA_ARCH__=" + std::to_string(Job.Target.CudaArch));
  }
  // An arch- or family-specific target (sm_90a, sm_100f): nvcc's feature
  // macros. Clang 19 defines only __CUDA_ARCH_FEAT_SM90_ALL, and only for the
  // sm_90a it knows.
  if (!HostSide && Real && Real->Suffix) {
    const std::string N = std::to_string(Real->Number);
    if (Real->Suffix == 'a') {
      if (ClangArch != Job.Target.Real)
        Args.push_back("-D__CUDA_ARCH_FEAT_SM" + N + "_ALL=1");
      Args.push_back("-D__CUDA_ARCH_SPECIFIC__=" +
                     std::to_string(Real->cudaArchMacro()));
    }
    Args.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" +
                   std::to_string(Real->cudaArchMacro()));
  }
}

} // namespace

Diagnostic inputError(const std::string &File, std::string Message) {
  Diagnostic D;
  D.Level = Severity::Error;
  D.Check = std::string(checkInfo(CheckId::Input).Name);
  D.Message = std::move(Message);
  D.Loc.File = File;
  return D;
}

/// The files a parse sees: the disk, under the unsaved buffers. One per parse:
/// the working folder is per parse.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemFor(const ParseEnvironment &Env, const std::string &Directory) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS =
      llvm::makeIntrusiveRefCnt<RegularFilesOnly>(
          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(
              llvm::vfs::createPhysicalFileSystem().release()));
  if (!Env.Unsaved.empty()) {
    auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    for (const auto &[Path, Text] : Env.Unsaved)
      Memory->addFile(Path, /*ModificationTime=*/0,
                      llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
    auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(FS);
    Overlay->pushOverlay(Memory);
    FS = Overlay;
  }
  FS->setCurrentWorkingDirectory(Directory);
  return FS;
}

TranslationUnitFacts crashedFacts(const UnitJob &Job) {
  TranslationUnitFacts Crashed;
  Crashed.File = Job.Command.File;
  Crashed.Arch = Job.Target.Real;
  Crashed.ParsedAs = clangArchFor(Job.Target.Real);
  Crashed.Failed = true;
  Diagnostic D =
      inputError(Job.Command.File,
                 "Clang crashed while parsing '" + Job.Command.File + "' for " +
                     Job.Target.Real + "; no figures for this unit");
  D.Arch = Job.Target.Real;
  Crashed.Diagnostics.push_back(std::move(D));
  return Crashed;
}

std::string clangArchFor(const std::string &Target) {
  if (clang::StringToOffloadArch(Target) != clang::OffloadArch::UNKNOWN)
    return Target;
  return "sm_90";
}

std::vector<UnitJob> planJobs(const std::vector<CompileCommand> &Commands,
                              const std::vector<std::string> &ArchOverride) {
  std::vector<UnitJob> Jobs;
  for (const CompileCommand &C : Commands) {
    DeviceFlags Flags = translateCommand(C);
    std::vector<DeviceTarget> Targets;
    if (!ArchOverride.empty()) {
      for (const std::string &A : ArchOverride)
        if (auto P = parseArch(A))
          Targets.push_back({P->name(), P->cudaArchMacro()});
    } else if (!Flags.Targets.empty()) {
      Targets = Flags.Targets;
    } else {
      auto P = parseArch(DefaultArch);
      Targets.push_back({P->name(), P->cudaArchMacro()});
    }
    std::set<unsigned> List;
    for (const DeviceTarget &T : Targets)
      List.insert(T.CudaArch);
    for (const DeviceTarget &T : Targets) {
      UnitJob J;
      J.Command = C;
      J.Flags = Flags;
      J.Target = T;
      J.ArchList.assign(List.begin(), List.end());
      Jobs.push_back(std::move(J));
    }
  }
  return Jobs;
}

std::vector<std::string> parseCommandLine(const UnitJob &Job,
                                          const ParseEnvironment &Env,
                                          bool HostSide) {
  const std::string ClangArch = clangArchFor(Job.Target.Real);
  std::vector<std::string> Args = {"clang++",
                                   "-x",
                                   "cuda",
                                   HostSide ? "--cuda-host-only"
                                            : "--cuda-device-only",
                                   "--cuda-gpu-arch=" + ClangArch,
                                   "-nocudalib"};
  if (!Env.ClangResourceDir.empty())
    Args.push_back("-resource-dir=" + Env.ClangResourceDir);
  Args.insert(Args.end(), Job.Flags.ClangArgs.begin(),
              Job.Flags.ClangArgs.end());

  addCudaHeaderArgs(Args, Env, HostSide);
  // The shared-constructor fix-up's spelling of `__shared__` (SourceFixups.h),
  // with or without a toolkit; it relies on `register`, which C++17 forbids and
  // nvcc only warns about.
  Args.push_back(std::string("-D") + SharedRegisterMacro + "=" +
                 SharedRegisterDefinition);
  Args.push_back("-Wno-register");
  if (Job.Flags.Rdc && Job.Flags.IsNvcc)
    Args.push_back("-D__CUDACC_RDC__");
  addArchMacroArgs(Args, Job, ClangArch, HostSide);
  // No C++20 named modules (nvcc has none): with them on, as -std=c++20 turns
  // them on, Clang 19 loses the host declarations of the aligned global
  // operator new a precompiled header holds (<new>'s, included by the runtime
  // headers), finds only the implicit __device__ one, and crashed in
  // Sema::ActOnCXXDelete on the next libstdc++ header that deletes (<iomanip>,
  // <iostream>). Every parse is given it, precompiled or not, so the fast
  // paths parse as the plain one does.
  // (The driver does not pass its -fno-cxx-modules on: said to the front end.)
  Args.push_back("-Xclang");
  Args.push_back("-fno-cxx-modules");
  // A narrowing conversion in braced initialization (`coord c = {blockIdx.z,
  // ...}` with int fields) is nvcc's warning 2361-D and Clang's error: a
  // warning here too, so the kernel keeps its figures.
  Args.push_back("-Wno-c++11-narrowing");
  Args.push_back("-fsyntax-only");
  Args.push_back("-w");
  // A unit with errors is analysed as Clang built it: let it report them all
  // (past the limit Clang reports none, and what follows counts as touched by
  // the errors).
  Args.push_back("-ferror-limit=200");
  // No "N errors generated" on stderr: tilefit reports the errors itself.
  Args.push_back("-fno-caret-diagnostics");
  Args.push_back(Job.Command.File);
  return Args;
}

} // namespace frontend
} // namespace tilefit
