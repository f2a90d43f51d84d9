//===- NvccOptions.cpp - nvcc's options, as a table -----------------------===//
#include "NvccOptions.h"

namespace tilefit {
namespace frontend {
namespace {

const NvccOption NvccOptions[] = {
    {{"-I", "--include-path"}, true, NvccAction::Keep, "-I"},
    {{"-isystem", "--system-include"}, true, NvccAction::Keep, "-isystem"},
    {{"-D", "--define-macro"}, true, NvccAction::Keep, "-D"},
    {{"-U", "--undefine-macro"}, true, NvccAction::Keep, "-U"},
    {{"-include", "--pre-include"}, true, NvccAction::Keep, "-include"},
    {{"-std", "--std"}, true, NvccAction::Std},
    {{"-x", "--x"}, true, NvccAction::Language},
    {{"-maxrregcount", "--maxrregcount"}, true, NvccAction::MaxRegisters},
    {{"-arch", "--gpu-architecture"}, true, NvccAction::Arch},
    {{"-code", "--gpu-code"}, true, NvccAction::Code},
    {{"-gencode", "--generate-code"}, true, NvccAction::Gencode},
    {{"-rdc", "--relocatable-device-code"}, true, NvccAction::Rdc},
    {{"-dc", "--device-c", "-dw", "--device-w"}, false, NvccAction::RdcOn},
    {{"-Xcompiler", "--compiler-options"}, true, NvccAction::HostCompiler},
    // Clang accepts relaxed constexpr and extended lambdas as they are; nvcc
    // says it was asked for them with these macros, which code tests ("This
    // example requires extended lambda support").
    {{"-expt-relaxed-constexpr", "--expt-relaxed-constexpr"},
     false,
     NvccAction::Define,
     "__CUDACC_RELAXED_CONSTEXPR__"},
    {{"-expt-extended-lambda", "--expt-extended-lambda", "-extended-lambda",
      "--extended-lambda"},
     false,
     NvccAction::Define,
     "__CUDACC_EXTENDED_LAMBDA__"},
    // And these, as nvcc's --dryrun shows it defines them for its preprocessing
    // passes.
    {{"-G", "--device-debug"}, false, NvccAction::Define, "__CUDACC_DEBUG__"},
    {{"-dlto", "--dlink-time-opt"},
     false,
     NvccAction::Define,
     "__CUDACC_RDC__"},
    {{"-allow-unsupported-compiler", "--allow-unsupported-compiler"},
     false,
     NvccAction::Define,
     "__NV_NO_HOST_COMPILER_CHECK=1"},
    {{"-default-stream", "--default-stream"}, true, NvccAction::DefaultStream},
    {{"-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
      "-forward-unknown-opts", "--forward-unknown-opts"},
     false,
     NvccAction::ForwardUnknown},
    // Accepted and irrelevant to a device-side parse.
    {{"-o",
      "--output-file",
      "-ccbin",
      "--compiler-bindir",
      "-Xptxas",
      "--ptxas-options",
      "-Xlinker",
      "--linker-options",
      "-Xnvlink",
      "--nvlink-options",
      "-Xcudafe",
      "-Xcicc",
      "-Xfatbin",
      "--fatbin-options",
      "-Xarchive",
      "--archive-options",
      "-maxrregcount",
      "--maxrregcount",
      "-t",
      "--threads",
      "--diag-suppress",
      "-diag-suppress",
      "--diag-warn",
      "-diag-warn",
      "--diag-error",
      "-diag-error",
      "--keep-dir",
      "-keep-dir",
      "-odir",
      "--output-directory",
      "-MF",
      "--dependency-output",
      "-MT",
      "--dependency-target-name",
      "-cudart",
      "--cudart",
      "-cudadevrt",
      "--cudadevrt",
      "-l",
      "--library",
      "-L",
      "--library-path",
      "-ftz",
      "--ftz",
      "-prec-div",
      "--prec-div",
      "-prec-sqrt",
      "--prec-sqrt",
      "-fmad",
      "--fmad",
      "-time",
      "--time",
      "-split-compile",
      "--split-compile",
      "-Werror",
      "--Werror",
      "-ftemplate-depth",
      "--ftemplate-depth",
      "-ptxas-options",
      "-jump-table-density"},
     true,
     NvccAction::Drop},
    {{"-c",
      "--compile",
      "-lineinfo",
      "--generate-line-info",
      "-g",
      "-E",
      "--preprocess",
      "-arch-ls",
      "--list-gpu-arch",
      "-err-no",
      "--display-error-number",
      "--debug",
      "-keep",
      "--keep",
      "-w",
      "--disable-warnings",
      "-Wno-deprecated-gpu-targets",
      "-Wno-deprecated-declarations",
      "-use_fast_math",
      "--use_fast_math",
      "-m64",
      "--machine",
      "-MD",
      "-MMD",
      "-M",
      "--generate-dependencies",
      "--generate-nonsystem-dependencies",
      "-res-usage",
      "--resource-usage",
      "-v",
      "--verbose",
      "-dryrun",
      "--dryrun",
      "-shared",
      "--shared",
      "-lib",
      "--lib",
      "-link",
      "--link",
      "-cubin",
      "--cubin",
      "-ptx",
      "--ptx",
      "-fatbin",
      "--fatbin",
      "-dlink",
      "--device-link",
      "-Wreorder",
      "-Wext-lambda-captures-this",
      "-Wno-deprecated-gpu-targets",
      "-restrict",
      "--restrict",
      "-src-in-ptx",
      "--source-in-ptx",
      "-noprof",
      "--dont-use-profile",
      "-static-global-template-stub",
      "--static-global-template-stub",
      "-pg",
      "-O0",
      "-O1",
      "-O2",
      "-O3",
      "-Os",
      "-Og",
      "-Wall",
      "-Wextra",
      "-pedantic",
      "-fPIC",
      "-pthread",
      "-DNDEBUG"},
     false,
     NvccAction::Drop},
};

/// Every option nvcc 13 documents (NvccHelp.def, from `nvcc --help`).
struct DocumentedOption {
  const char *Long, *Short;
  bool TakesValue;
};
const DocumentedOption Documented[] = {
#define TILEFIT_NVCC_HELP(Long, Short, TakesValue) {Long, Short, TakesValue},
#include "NvccHelp.def"
};

/// What tilefit does with a documented option its own table does not name:
/// nothing, once its value is consumed.
const NvccOption DocumentedFlag{{}, false, NvccAction::Drop};
const NvccOption DocumentedWithValue{{}, true, NvccAction::Drop};

} // namespace

const NvccOption *findNvccOption(llvm::StringRef Name) {
  for (const NvccOption &O : NvccOptions)
    for (const char *N : O.Names)
      if (Name == N)
        return &O;
  return nullptr;
}

const NvccOption *documentedNvccOption(llvm::StringRef Name) {
  if (const NvccOption *O = findNvccOption(Name))
    return O;
  for (const DocumentedOption &D : Documented)
    if (Name == D.Long || (*D.Short && Name == D.Short))
      return D.TakesValue ? &DocumentedWithValue : &DocumentedFlag;
  return nullptr;
}

} // namespace frontend
} // namespace tilefit
