//===- CommandTranslationTest.cpp - Build commands to parse flags ---------===//
#include "tilefit/frontend/CommandTranslation.h"
#include "tilefit/frontend/Parse.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

namespace tilefit {
namespace frontend {
namespace {

DeviceFlags translate(std::vector<std::string> Argv,
                      std::string File = "/src/k.cu") {
  CompileCommand C;
  C.Directory = "/build";
  C.File = File;
  C.Arguments = std::move(Argv);
  return translateCommand(C);
}

std::string targets(const DeviceFlags &F) {
  std::vector<std::string> Out;
  for (const DeviceTarget &T : F.Targets)
    Out.push_back(T.Real + "@" + std::to_string(T.CudaArch) +
                  (T.Jit ? "(jit)" : ""));
  return llvm::join(Out, " ");
}

std::string args(const DeviceFlags &F) { return llvm::join(F.ClangArgs, " "); }

struct Case {
  std::vector<std::string> Argv;
  std::string Targets;   ///< Expected targets, "sm_XX@NNN ...".
  std::string ClangArgs; ///< Expected parse flags.
  bool Rdc = false;
};

class NvccTranslation : public ::testing::TestWithParam<Case> {};

TEST_P(NvccTranslation, Translates) {
  const Case &C = GetParam();
  std::vector<std::string> Argv = {"/usr/local/cuda/bin/nvcc"};
  Argv.insert(Argv.end(), C.Argv.begin(), C.Argv.end());
  Argv.push_back("/src/k.cu");
  DeviceFlags F = translate(Argv);
  EXPECT_TRUE(F.IsNvcc);
  EXPECT_TRUE(F.IsCuda);
  EXPECT_EQ(targets(F), C.Targets);
  EXPECT_EQ(args(F), C.ClangArgs);
  EXPECT_EQ(F.Rdc, C.Rdc);
  EXPECT_TRUE(F.Unknown.empty()) << llvm::join(F.Unknown, " ");
}

INSTANTIATE_TEST_SUITE_P(
    Flags, NvccTranslation,
    ::testing::Values(
        Case{{"-arch=sm_80"}, "sm_80@800", ""},
        Case{{"-arch", "sm_90a"}, "sm_90a@900", ""},
        Case{{"--gpu-architecture=sm_86"}, "sm_86@860", ""},
        Case{{"-arch=compute_80", "-code=sm_86,sm_89"},
             "sm_86@800 sm_89@800",
             ""},
        Case{{"-gencode", "arch=compute_80,code=sm_80",
              "-gencode=arch=compute_90,code=[sm_90,compute_90]"},
             "sm_80@800 sm_90@900",
             ""},
        Case{{"--generate-code=arch=compute_80,code=[compute_80,sm_80]"},
             "sm_80@800",
             ""},
        Case{{"-gencode", "arch=compute_80,code=\"sm_80,sm_86\""},
             "sm_80@800 sm_86@800",
             ""},
        Case{{"-arch=all-major"},
             "sm_80@800 sm_90@900 sm_100@1000 sm_110@1100 sm_120@1200",
             ""},
        Case{{"-arch=all"},
             "sm_75@750 sm_80@800 sm_86@860 sm_87@870 sm_88@880 sm_89@890 "
             "sm_90@900 "
             "sm_100@1000 sm_103@1030 sm_110@1100 sm_120@1200 sm_121@1210",
             ""},
        Case{{"-arch=compute_80"}, "sm_80@800(jit)", ""},
        Case{{"-gencode", "arch=compute_90,code=compute_90"},
             "sm_90@900(jit)",
             ""},
        Case{{"-gencode", "arch=compute_80,code=compute_80", "-gencode",
              "arch=compute_80,code=sm_80"},
             "sm_80@800",
             ""},
        Case{{"--gpu-architecture", "compute_75", "--gpu-code",
              "sm_75,compute_75"},
             "sm_75@750",
             ""},
        Case{{"-arch=sm_86", "-gencode=arch=compute_90a,code=sm_90a"},
             "sm_90a@900 sm_86@860",
             ""},
        Case{{"-I/inc", "-I", "/inc2", "--include-path=/inc3", "-isystem",
              "/sys"},
             "",
             "-I /inc -I /inc2 -I /inc3 -isystem /sys"},
        Case{{"-DX=1", "-D", "Y", "--define-macro=Z=2", "-UW"},
             "",
             "-D X=1 -D Y -D Z=2 -U W"},
        Case{{"-std=c++17"}, "", "-std=c++17"},
        Case{{"--std", "c++20"}, "", "-std=c++20"},
        Case{{"-include", "pre.h"}, "", "-include pre.h"},
        Case{{"-Xcompiler", "-fPIC,-DHOST=1,-Wall", "--compiler-options=-I/h"},
             "",
             "-DHOST=1 -I/h"},
        Case{{"-rdc=true"}, "", "", true},
        Case{{"--relocatable-device-code=true"}, "", "", true},
        Case{{"-dc"}, "", "", true},
        Case{{"-forward-unknown-to-host-compiler", "-Wall", "-fPIC", "-O2"},
             "",
             ""},
        Case{{"--expt-relaxed-constexpr", "--extended-lambda", "-lineinfo",
              "-G", "--use_fast_math", "-Xptxas", "-v", "-maxrregcount=64",
              "-ccbin", "g++", "--keep", "--diag-suppress", "177",
              "-Wno-deprecated-gpu-targets", "-c", "-o", "k.o", "-x", "cu"},
             "",
             "-D__CUDACC_RELAXED_CONSTEXPR__ -D__CUDACC_EXTENDED_LAMBDA__ "
             "-D__CUDACC_DEBUG__"},
        // Flags without a value take none: the architecture after them is read,
        // and the last -arch counts, as nvcc's --dryrun shows.
        Case{{"-dlto", "-arch=sm_80", "-E", "-arch-ls", "-err-no",
              "-arch=sm_90"},
             "sm_90@900",
             "-D__CUDACC_RDC__"},
        Case{{"--default-stream", "per-thread", "-allow-unsupported-compiler",
              "-default-stream=legacy"},
             "",
             "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1 "
             "-D__NV_NO_HOST_COMPILER_CHECK=1"},
        Case{{"--expt-extended-lambda", "-expt-relaxed-constexpr",
              "-Werror=all-warnings", "-Werror", "cross-execution-space-call",
              "--compiler-bindir=/usr/bin/g++", "-Xptxas=-O3,-v",
              "--maxrregcount", "32", "--ptxas-options=-v", "-keep",
              "--diag-suppress=20012,177", "-t", "4", "--threads=0",
              "-use_fast_math", "-m64"},
             "",
             "-D__CUDACC_EXTENDED_LAMBDA__ -D__CUDACC_RELAXED_CONSTEXPR__"},
        Case{{"-Xcompiler=-Wall,-DFOO", "--compiler-options", "-std=c++17"},
             "",
             "-DFOO -std=c++17"},
        Case{{"-isystem=/opt/inc", "--system-include", "/sys2"},
             "",
             "-isystem /opt/inc -isystem /sys2"}));

TEST(NvccTranslationTest, NativeArchitectureFallsBackWithAWarning) {
  DeviceFlags F = translate({"nvcc", "-arch=native", "/src/k.cu"});
  EXPECT_EQ(targets(F), "sm_75@750");
  EXPECT_TRUE(F.NativeArch) << "the run says so, unless --arch chose";
  EXPECT_NE(nativeArchWarning().find("-arch=native"), std::string::npos);
  EXPECT_NE(nativeArchWarning().find("sm_75"), std::string::npos);
  EXPECT_TRUE(F.Unknown.empty());
}

TEST(NvccTranslationTest, LoadFlagsAreRefused) {
  DeviceFlags F = translate({"nvcc", "-load", "/evil.so", "-fplugin=/x.so",
                             "-arch=sm_80", "/src/k.cu"});
  EXPECT_EQ(F.Refused,
            (std::vector<std::string>{"-load /evil.so", "-fplugin=/x.so"}));
  EXPECT_EQ(args(F), "");
}

TEST(NvccTranslationTest, UnknownFlagsAreCollected) {
  DeviceFlags F =
      translate({"nvcc", "--frobnicate", "-arch=sm_80", "/src/k.cu"});
  EXPECT_EQ(F.Unknown, std::vector<std::string>{"--frobnicate"});
  EXPECT_EQ(targets(F), "sm_80@800");
}

// Every option nvcc documents is known (NvccHelp.def, from `nvcc --help`),
// with its value consumed: ggml's build passes `-compress-mode=size`.
TEST(NvccTranslationTest, DocumentedOptionsAreKnownWithTheirValues) {
  DeviceFlags F = translate({"nvcc", "-compress-mode=size", "--compress-mode",
                             "balance", "-t", "4", "--split-compile", "2",
                             "-Xptxas", "-v", "-arch=sm_80", "/src/k.cu"});
  EXPECT_TRUE(F.Unknown.empty()) << llvm::join(F.Unknown, " ");
  EXPECT_EQ(targets(F), "sm_80@800");
  EXPECT_EQ(args(F), "") << "their values are not taken for inputs or flags";
  // Clang's commands are not taken for nvcc's for sharing names with it.
  EXPECT_FALSE(argumentsLookLikeNvcc({"-c", "-E", "-g", "-o", "k.o", "k.cu"}));
}

// tilefit's own arguments after `--`: a pasted nvcc line, with or without its
// compiler.
TEST(PastedCommandTest, NvccSpellingsSayNvccAndSharedOnesSayNothing) {
  EXPECT_TRUE(argumentsLookLikeNvcc({"-arch=sm_80"}));
  EXPECT_TRUE(argumentsLookLikeNvcc({"-I", "inc", "--use_fast_math"}));
  EXPECT_TRUE(
      argumentsLookLikeNvcc({"-gencode", "arch=compute_90,code=sm_90"}));
  EXPECT_TRUE(
      argumentsLookLikeNvcc({"-std=c++17", "--expt-relaxed-constexpr"}));
  EXPECT_FALSE(
      argumentsLookLikeNvcc({"-std=c++17", "-I", "inc", "-DN=4", "-O3"}));
  EXPECT_FALSE(argumentsLookLikeNvcc({"--cuda-gpu-arch=sm_80", "-std=c++17"}));
  EXPECT_FALSE(
      argumentsLookLikeNvcc({"--offload-arch=sm_90", "--use_fast_math"}));
  EXPECT_FALSE(argumentsLookLikeNvcc({}));
}

TEST(PastedCommandTest, CompilerNames) {
  for (const char *C : {"nvcc", "/usr/local/cuda/bin/nvcc", "clang++", "clang",
                        "clang++-19", "/usr/bin/clang-19", "nvcc.exe"})
    EXPECT_TRUE(isCompilerName(C)) << C;
  for (const char *C :
       {"-arch=sm_80", "k.cu", "clangd", "clang-tidy", "g++", "clang++-x"})
    EXPECT_FALSE(isCompilerName(C)) << C;
}

TEST(NvccTranslationTest, NotCudaWithoutCuExtensionOrX) {
  EXPECT_FALSE(
      translate({"nvcc", "-c", "/src/host.cpp"}, "/src/host.cpp").IsCuda);
  EXPECT_TRUE(
      translate({"nvcc", "-x", "cu", "-c", "/src/host.cpp"}, "/src/host.cpp")
          .IsCuda);
}

TEST(ClangTranslationTest, ArchitecturesAndRdc) {
  DeviceFlags F = translate({"clang++", "--cuda-gpu-arch=sm_80",
                             "--offload-arch=sm_90,sm_120", "-fgpu-rdc", "-c",
                             "/src/k.cu", "-o", "k.o"});
  EXPECT_FALSE(F.IsNvcc);
  EXPECT_TRUE(F.IsCuda);
  EXPECT_EQ(targets(F), "sm_80@800 sm_90@900 sm_120@1200");
  EXPECT_TRUE(F.Rdc);
  EXPECT_EQ(args(F), "");
  F = translate({"clang++", "--offload-arch=sm_80", "--offload-arch=sm_90",
                 "--no-offload-arch=sm_80", "/src/k.cu"});
  EXPECT_EQ(targets(F), "sm_90@900");
}

TEST(ClangTranslationTest, KeepsParseFlagsDropsOutputsAndErrors) {
  DeviceFlags F = translate(
      {"clang++",     "-x",          "cuda",     "-I",    "inc", "-Iinc2",
       "-DA=1",       "-std=c++17",  "-MD",      "-MF",   "k.d", "-Werror",
       "-Werror=foo", "-save-temps", "-include", "pre.h", "-O2", "-c",
       "/src/k.cpp",  "-o",          "k.o"},
      "/src/k.cpp");
  EXPECT_TRUE(F.IsCuda);
  EXPECT_EQ(args(F), "-I inc -Iinc2 -DA=1 -std=c++17 -include pre.h -O2");
}

TEST(ClangTranslationTest, PluginFlagsAreRefused) {
  DeviceFlags F =
      translate({"clang++", "-fplugin=/evil.so", "-Xclang", "-load", "-Xclang",
                 "/evil2.so", "-Xclang", "-add-plugin", "-Xclang", "x",
                 "-fpass-plugin=/p.so", "-Xclang", "-fno-rtti", "/src/k.cu"});
  EXPECT_EQ(args(F), "-Xclang -fno-rtti");
  EXPECT_EQ(F.Refused.size(), 4u) << llvm::join(F.Refused, " | ");
}

TEST(ParseCommandTest, ArchitectureClangDoesNotKnowIsParsedAsSm90) {
  EXPECT_EQ(clangArchFor("sm_80"), "sm_80");
  EXPECT_EQ(clangArchFor("sm_90a"), "sm_90a");
  EXPECT_EQ(clangArchFor("sm_100a"), "sm_90");
  EXPECT_EQ(clangArchFor("sm_88"), "sm_90");
  EXPECT_EQ(clangArchFor("sm_121"), "sm_90");

  UnitJob J;
  J.Command.File = "/src/k.cu";
  J.Command.Directory = "/src";
  J.Flags.IsCuda = true;
  J.Target = {"sm_100a", 1000};
  J.ArchList = {800, 1000};
  ParseEnvironment Env;
  Env.ResourceInclude = "/res";
  std::string Line = llvm::join(parseCommandLine(J, Env), " ");
  EXPECT_NE(Line.find("--cuda-gpu-arch=sm_90 "), std::string::npos) << Line;
  EXPECT_NE(Line.find("-U__CUDA_ARCH__ -D__CUDA_ARCH__=1000"),
            std::string::npos)
      << Line;
  EXPECT_NE(Line.find("-D__CUDA_ARCH_LIST__=800,1000"), std::string::npos)
      << Line;
  EXPECT_NE(Line.find("-D__CUDA_ARCH_FEAT_SM100_ALL=1"), std::string::npos)
      << Line;
  EXPECT_NE(Line.find("-D__CUDA_ARCH_SPECIFIC__=1000"), std::string::npos)
      << Line;
  EXPECT_NE(Line.find("-D__CUDA_ARCH_FAMILY_SPECIFIC__=1000"),
            std::string::npos)
      << Line;
  // No toolkit: the prelude.
  EXPECT_NE(Line.find("-nocudainc -include /res/tilefit/cuda_prelude.h"),
            std::string::npos)
      << Line;

  J.Target = {"sm_100f", 1000};
  Line = llvm::join(parseCommandLine(J, Env), " ");
  EXPECT_EQ(Line.find("FEAT"), std::string::npos) << Line;
  EXPECT_EQ(Line.find("__CUDA_ARCH_SPECIFIC__"), std::string::npos) << Line;
  EXPECT_NE(Line.find("-D__CUDA_ARCH_FAMILY_SPECIFIC__=1000"),
            std::string::npos)
      << Line;

  J.Target = {"sm_80", 800};
  Line = llvm::join(parseCommandLine(J, Env), " ");
  EXPECT_EQ(Line.find("-U__CUDA_ARCH__"), std::string::npos) << Line;
}

TEST(PlanJobsTest, OneJobPerArchitecture) {
  CompileCommand C;
  C.File = "/src/k.cu";
  C.Directory = "/src";
  C.Arguments = {"nvcc",
                 "-gencode",
                 "arch=compute_80,code=sm_80",
                 "-gencode",
                 "arch=compute_90,code=sm_90",
                 "/src/k.cu"};
  auto Jobs = planJobs({C}, {});
  ASSERT_EQ(Jobs.size(), 2u);
  EXPECT_EQ(Jobs[0].Target.Real, "sm_80");
  EXPECT_EQ(Jobs[1].Target.Real, "sm_90");
  EXPECT_EQ(Jobs[1].ArchList, (std::vector<unsigned>{800, 900}));
  // --arch overrides; a command naming none gets nvcc's default.
  EXPECT_EQ(planJobs({C}, {"sm_120"}).size(), 1u);
  C.Arguments = {"clang++", "/src/k.cu"};
  Jobs = planJobs({C}, {});
  ASSERT_EQ(Jobs.size(), 1u);
  EXPECT_EQ(Jobs[0].Target.Real, "sm_75");
}

} // namespace
} // namespace frontend
} // namespace tilefit
