//===- Toolkit.cpp --------------------------------------------------------===//
#include "tilefit/frontend/Toolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <regex>

namespace tilefit {
namespace frontend {
namespace {

bool isToolkit(const std::string &Root) {
  llvm::SmallString<256> P(Root);
  llvm::sys::path::append(P, "include", "cuda_runtime.h");
  return llvm::sys::fs::exists(P);
}

std::string readVersion(const std::string &Root) {
  llvm::SmallString<256> P(Root);
  llvm::sys::path::append(P, "include", "cuda.h");
  auto Buf = llvm::MemoryBuffer::getFile(P);
  if (!Buf)
    return "";
  std::string Text = (*Buf)->getBuffer().str();
  std::smatch M;
  if (std::regex_search(Text, M,
                        std::regex(R"(#define\s+CUDA_VERSION\s+(\d+))"))) {
    int V = std::stoi(M[1]);
    return std::to_string(V / 1000) + "." + std::to_string((V % 1000) / 10);
  }
  return "";
}

/// `13.0.88`: version.json's "cuda_nvcc" entry (the runfile and package
/// installations), else the name of a `nvidia_cuda_nvcc-13.0.88.dist-info`
/// folder (the wheel layout).
std::string readNvccVersion(const std::string &Root) {
  llvm::SmallString<256> Json(Root);
  llvm::sys::path::append(Json, "version.json");
  if (auto Buf = llvm::MemoryBuffer::getFile(Json)) {
    std::string Text = (*Buf)->getBuffer().str();
    std::smatch M;
    if (std::regex_search(
            Text, M,
            std::regex(
                R"("cuda_nvcc"\s*:\s*\{[^}]*"version"\s*:\s*"(\d+\.\d+\.\d+))")))
      return M[1];
  }
  llvm::SmallString<256> Dist(Root);
  llvm::sys::path::append(Dist, "dist-info");
  std::error_code EC;
  const std::regex Folder(R"(nvidia_cuda_nvcc-(\d+\.\d+\.\d+)\.dist-info)");
  for (llvm::sys::fs::directory_iterator It(Dist, EC), End; !EC && It != End;
       It.increment(EC)) {
    std::string Name = llvm::sys::path::filename(It->path()).str();
    std::smatch M;
    if (std::regex_match(Name, M, Folder))
      return M[1];
  }
  return "";
}

void fill(CudaToolkit &T, const std::string &Root, const char *How) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Root, Real))
    Real = Root;
  T.Path = std::string(Real);
  T.FoundBy = How;
  T.Version = readVersion(T.Path);
  T.NvccVersion = readNvccVersion(T.Path);
  llvm::SmallString<256> Cccl(T.Path);
  llvm::sys::path::append(Cccl, "include", "cccl");
  T.HasCccl = llvm::sys::fs::is_directory(Cccl);
}

} // namespace

CudaToolkit findCudaToolkit(const std::string &Explicit, std::string &Error) {
  CudaToolkit T;
  if (!Explicit.empty()) {
    T.Searched.push_back(Explicit + " (--cuda-path)");
    if (isToolkit(Explicit))
      fill(T, Explicit, "--cuda-path");
    else
      Error = "--cuda-path=" + Explicit +
              ": not a CUDA toolkit (no include/cuda_runtime.h)";
    return T;
  }
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME"}) {
    if (const char *V = std::getenv(Var); V && *V) {
      T.Searched.push_back(std::string(V) + " ($" + Var + ")");
      if (isToolkit(V)) {
        fill(T, V, Var);
        return T;
      }
    }
  }
  if (auto Nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(*Nvcc, Real))
      Real = *Nvcc;
    // <root>/bin/nvcc
    std::string Root = std::string(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real)));
    T.Searched.push_back(Root + " (nvcc on PATH)");
    if (isToolkit(Root)) {
      fill(T, Root, "nvcc on PATH");
      return T;
    }
  }
  T.Searched.push_back("/usr/local/cuda");
  if (isToolkit("/usr/local/cuda"))
    fill(T, "/usr/local/cuda", "default");
  return T;
}

} // namespace frontend
} // namespace tilefit
