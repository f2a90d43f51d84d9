//===- MatchInstantiatedTest.cpp - Matchers run outside template patterns -===//
//
// matchInstantiated (MatchInstantiated.h) stands in for MatchFinder::matchAST
// in the collectors: it must offer them every variable, function and call
// matchAST does, in the same order, but those a templated declaration holds.
// Each test registers matchers that do not leave templated code out
// themselves and compares what each walk found, under C++17 and C++20, on a
// CUDA unit with templates of every kind that hold variables, kernels and
// launches.
//
//===----------------------------------------------------------------------===//
#include "../support/TestSupport.h"

#include "tilefit/frontend/Parse.h"
#include "tilefit/matchers/MatchInstantiated.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tilefit {
namespace test {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

/// One match: what was bound, where, and whether templated code holds it.
struct Found {
  std::string What;
  bool Templated = false;
};

/// \p D's name as diagnostics print it: qualified, with template arguments.
std::string nameOf(const NamedDecl *D) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  D->getNameForDiagnostic(OS, D->getASTContext().getPrintingPolicy(),
                          /*Qualified=*/true);
  return Name;
}

class Recorder : public MatchFinder::MatchCallback {
public:
  void run(const MatchFinder::MatchResult &R) override {
    const SourceManager &SM = *R.SourceManager;
    Found F;
    SourceLocation Loc;
    const Decl *In = R.Nodes.getNodeAs<Decl>("in");
    if (const auto *D = R.Nodes.getNodeAs<NamedDecl>("decl")) {
      F.What = std::string(D->getDeclKindName()) + " " + nameOf(D);
      F.Templated = D->isTemplated();
      Loc = D->getLocation();
      In = dyn_cast<FunctionDecl>(D->getDeclContext());
    } else if (const auto *C = R.Nodes.getNodeAs<CallExpr>("call")) {
      F.What = C->getStmtClassName();
      F.Templated = In && In->isTemplated();
      Loc = C->getBeginLoc();
    }
    F.What += " @" + std::to_string(SM.getPresumedLineNumber(
                         SM.getExpansionLoc(Loc)));
    if (const auto *Fn = dyn_cast_or_null<FunctionDecl>(In))
      F.What += " in " + nameOf(Fn);
    // The unit's own (Clang makes the headers' constexpr static members
    // `__constant__` on the device side).
    if (SM.isWrittenInMainFile(SM.getExpansionLoc(Loc)))
      Out.push_back(F);
  }
  std::vector<Found> Out;
};

void addMatchers(MatchFinder &Finder, Recorder &R) {
  Finder.addMatcher(varDecl(hasAttr(attr::CUDAShared)).bind("decl"), &R);
  Finder.addMatcher(varDecl(hasAttr(attr::CUDAConstant)).bind("decl"), &R);
  Finder.addMatcher(functionDecl(hasAttr(attr::CUDAGlobal)).bind("decl"), &R);
  Finder.addMatcher(
      cudaKernelCallExpr(optionally(forCallable(decl().bind("in"))))
          .bind("call"),
      &R);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("::cudaFuncSetAttribute"))),
               optionally(forCallable(decl().bind("in"))))
          .bind("call"),
      &R);
}

struct Walks {
  std::vector<Found> All, Instantiated;
};

class WalkConsumer : public ASTConsumer {
public:
  explicit WalkConsumer(Walks &Out) : Out(Out) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    {
      MatchFinder Finder;
      Recorder R;
      addMatchers(Finder, R);
      Finder.matchAST(Ctx);
      Out.All = R.Out;
    }
    MatchFinder Finder;
    Recorder R;
    addMatchers(Finder, R);
    matchers::matchInstantiated(Finder, Ctx);
    Out.Instantiated = R.Out;
  }

private:
  Walks &Out;
};

class WalkAction : public ASTFrontendAction {
public:
  explicit WalkAction(Walks &Out) : Out(Out) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 llvm::StringRef) override {
    return std::make_unique<WalkConsumer>(Out);
  }

private:
  Walks &Out;
};

class MatchInstantiatedTest : public TempDirTest {
protected:
  Walks walk(const std::string &Text, const std::string &Std) {
    const std::string Unit = write("unit.cu", Text);
    frontend::CompileCommand C;
    C.File = Unit;
    C.Directory = Dir;
    C.Arguments = {"clang++", Std, Unit};
    std::vector<frontend::UnitJob> Jobs = frontend::planJobs({C}, {"sm_90"});
    EXPECT_EQ(Jobs.size(), 1u);
    Walks Out;
    auto Files =
        llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions());
    tooling::ToolInvocation Invocation(
        frontend::parseCommandLine(Jobs[0], environmentWithoutPch()),
        std::make_unique<WalkAction>(Out), Files.get());
    EXPECT_TRUE(Invocation.run());
    return Out;
  }
};

std::vector<std::string> names(const std::vector<Found> &Fs,
                               bool DropTemplated) {
  std::vector<std::string> Out;
  for (const Found &F : Fs)
    if (!DropTemplated || !F.Templated)
      Out.push_back(F.What);
  return Out;
}

/// Templates of every kind around variables, kernels and launches, and the
/// plain code that instantiates them.
constexpr const char *Unit = R"(#include <cuda_runtime.h>
__constant__ float table[4];
template <int N> __constant__ float scales[N];
template <int N> __global__ void tiled(float *o) {
  __shared__ float t[N];
  t[threadIdx.x % N] = o[0] + scales<N>[0];
  __syncthreads();
  o[threadIdx.x] = t[0];
}
template <int N> void launch_tiled(float *o) {
  cudaFuncSetAttribute(tiled<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, N);
  tiled<N><<<1, N, 0>>>(o);
}
template <class T> struct Runner {
  static __global__ void member_kernel(T *o) {
    __shared__ T s[32];
    s[threadIdx.x % 32] = o[0];
    __syncthreads();
    o[0] = s[1];
  }
  void run(T *o) {
    struct Local { static void go(T *p) { member_kernel<<<1, 32>>>(p); } };
    Local::go(o);
  }
  template <int M> void run_more(T *o) { tiled<M><<<1, M>>>((float *)o); }
};
template <class T> struct Runner<T *> {
  void run(T **o) { tiled<8><<<1, 8>>>((float *)*o); }
};
template struct Runner<double>;
template __global__ void tiled<48>(float *);
__global__ void plain(float *o) {
  __shared__ float p[64];
  p[threadIdx.x % 64] = table[0];
  __syncthreads();
  o[0] = p[2];
}
void host(float *o) {
  launch_tiled<16>(o);
  launch_tiled<32>(o);
  Runner<float> r;
  r.run(o);
  r.run_more<64>(o);
  auto generic = [](auto *p) { tiled<128><<<1, 128>>>((float *)p); };
  generic(o);
  auto plain_lambda = [](float *p) { plain<<<1, 64>>>(p); };
  plain_lambda(o);
  plain<<<2, 64>>>(o);
  cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  float f = scales<4>[0] + scales<2>[1];
  (void)f;
}
#if __cplusplus >= 202002L
template <class T> concept Pointer = requires(T p) { *p; };
void abbreviated(Pointer auto p) { tiled<256><<<1, 256>>>((float *)p); }
void host20(float *o) { abbreviated(o); }
#endif
)";

TEST_F(MatchInstantiatedTest, FindsWhatMatchAstFindsOutsideTemplatedCode) {
  for (const char *Std : {"-std=c++17", "-std=c++20"}) {
    SCOPED_TRACE(Std);
    Walks W = walk(Unit, Std);
    const std::vector<std::string> Expected = names(W.All, true),
                                   Got = names(W.Instantiated, false);
    EXPECT_EQ(Got, Expected);
    // Nothing templated is offered, and the unit had some of it to leave out.
    for (const Found &F : W.Instantiated)
      EXPECT_FALSE(F.Templated) << F.What;
    EXPECT_GT(W.All.size(), Expected.size());
    // What the collectors look for is among the findings: variables and
    // kernels of instantiations, variable template specializations, launches
    // and calls in instantiated functions, local classes and lambdas.
    const auto Has = [&](const std::string &What) {
      return std::find(Got.begin(), Got.end(), What) != Got.end();
    };
    for (const char *What :
         {"Var table @2", "VarTemplateSpecialization scales<4> @3",
          "Function tiled<48> @4", "Var t @5 in tiled<48>",
          "Var t @5 in tiled<16>", "CallExpr @11 in launch_tiled<32>",
          "CUDAKernelCallExpr @12 in launch_tiled<32>",
          "Var s @16 in Runner<double>::member_kernel",
          "CUDAKernelCallExpr @22 in Runner<float>::run(float *)::Local::go",
          "CUDAKernelCallExpr @25 in Runner<float>::run_more<64>",
          "Var p @33 in plain", "CUDAKernelCallExpr @48 in host",
          "CallExpr @49 in host",
          "CUDAKernelCallExpr @44 in host(float *)::(anonymous "
          "class)::operator()<float>",
          "CUDAKernelCallExpr @46 in host(float *)::(anonymous "
          "class)::operator()"})
      EXPECT_TRUE(Has(What)) << What;
    if (std::string(Std) == "-std=c++20") {
      EXPECT_TRUE(Has("CUDAKernelCallExpr @55 in abbreviated<float *>"));
      EXPECT_TRUE(Has("Var t @5 in tiled<256>"));
    }
  }
}

} // namespace
} // namespace test
} // namespace tilefit
