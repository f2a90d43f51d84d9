//===- CommandTranslation.cpp ---------------------------------------------===//
//
// A compile command's flags translated for Clang's device parse: clang's own
// (kept, or dropped where they concern code generation or plugins), and
// nvcc's, read through its option table (NvccOptions.h).
//
//===----------------------------------------------------------------------===//
#include "tilefit/frontend/CommandTranslation.h"

#include "ClangOptions.h"
#include "NvccOptions.h"
#include "tilefit/model/Arch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <initializer_list>

namespace tilefit {
namespace frontend {

bool isNvcc(llvm::StringRef Compiler) {
  llvm::StringRef Base = llvm::sys::path::filename(Compiler);
  return Base == "nvcc" || Base == "nvcc.exe" || Base.ends_with("-nvcc");
}

std::string nativeArchWarning() {
  return "-arch=native names the GPU of the building machine, which tilefit "
         "cannot know; "
         "analysing " +
         std::string(DefaultArch) + " (use --arch to choose)";
}

bool isCompilerName(llvm::StringRef Arg) {
  if (Arg.starts_with("-") || isNvcc(Arg))
    return !Arg.starts_with("-");
  llvm::StringRef Base = llvm::sys::path::filename(Arg);
  Base.consume_back(".exe");
  if (!Base.consume_front("clang"))
    return false;
  Base.consume_front("++");
  return Base.empty() ||
         (Base.consume_front("-") && !Base.empty() &&
          Base.find_first_not_of("0123456789.") == llvm::StringRef::npos);
}

namespace {

bool isCudaExtension(llvm::StringRef File) {
  return llvm::sys::path::extension(File).equals_insensitive(".cu");
}

/// Adds \p T; a real target and a JIT one for the same architecture are one
/// real target.
void addTarget(DeviceFlags &F, const DeviceTarget &T) {
  auto It = std::find(F.Targets.begin(), F.Targets.end(), T);
  if (It == F.Targets.end())
    F.Targets.push_back(T);
  else
    It->Jit = It->Jit && T.Jit;
}

/// Flags that would make Clang load and run code, or read more flags from a
/// file past this filter (a Clang configuration file may hold -fplugin=): never
/// passed on.
bool isPluginFlag(llvm::StringRef A) {
  return A.starts_with("-fplugin=") || A.starts_with("-fpass-plugin=") ||
         A.starts_with("-fplugin-arg-") || A == "-load" ||
         A.starts_with("-load=") || A == "--load" || A.starts_with("--load=") ||
         A == "--config" || A.starts_with("--config=") ||
         A.starts_with("--config-system-dir=") ||
         A.starts_with("--config-user-dir=");
}
/// The plugin flags whose value is the next argument.
bool pluginFlagTakesValue(llvm::StringRef A) {
  return A == "-load" || A == "--load" || A == "--config";
}
/// A flag that would load code (isPluginFlag) at \p I: refused, with its value
/// when it takes one. \p I is left on the last argument read.
void refusePluginFlag(const std::vector<std::string> &A, size_t &I,
                      DeviceFlags &F) {
  llvm::StringRef Arg = A[I];
  if (pluginFlagTakesValue(Arg) && I + 1 < A.size())
    F.Refused.push_back(Arg.str() + " " + A[++I]);
  else
    F.Refused.push_back(Arg.str());
}
/// -Xclang values that load code; the first three take the plugin (or path) as
/// a value.
bool isPluginCc1Flag(llvm::StringRef A) {
  return A == "-load" || A == "-plugin" || A == "-add-plugin" ||
         A.starts_with("-plugin-arg-") || A.starts_with("-fpass-plugin=") ||
         A == "-load-pass-plugin";
}

//===-- clang ------------------------------------------------------------===//

namespace {

/// `-Xclang V` at \p I (on the `-Xclang`): V passed on, or refused when it
/// would load code. \p I is left on the last argument read.
void takeXclang(const std::vector<std::string> &A, size_t &I, DeviceFlags &F) {
  llvm::StringRef V = I + 1 < A.size() ? llvm::StringRef(A[++I]) : "";
  if (isPluginCc1Flag(V)) {
    F.Refused.push_back("-Xclang " + V.str());
    // The value of -load/-plugin/-add-plugin follows as another -Xclang.
    if ((V == "-load" || V == "-plugin" || V == "-add-plugin" ||
         V == "-load-pass-plugin") &&
        I + 2 < A.size() && A[I + 1] == "-Xclang")
      I += 2;
    return;
  }
  // -Xclang -mllvm -Xclang <option>: LLVM's options configure code
  // generation, which a parse does not run (and -load= among them would
  // load code).
  if (V == "-mllvm") {
    if (I + 2 < A.size() && A[I + 1] == "-Xclang") {
      I += 2;
      if (llvm::StringRef(A[I]).starts_with("-load"))
        F.Refused.push_back("-Xclang -mllvm -Xclang " + A[I]);
    }
    return;
  }
  F.ClangArgs.push_back("-Xclang");
  F.ClangArgs.push_back(V.str());
}

/// Clang flags dropped with the value that follows them: outputs, dependency
/// files, other tools' options.
bool clangDroppedWithValue(llvm::StringRef Arg) {
  return Arg == "-o" || Arg == "-MF" || Arg == "-MT" || Arg == "-MQ" ||
         Arg == "-MJ" || Arg == "-Xarch_host" || Arg == "-Xcuda-ptxas" ||
         Arg == "-Xcuda-fatbinary" || Arg == "-Xlinker" ||
         Arg == "-Xassembler" || Arg == "-serialize-diagnostics" ||
         Arg == "--serialize-diagnostics";
}

/// Clang flags dropped alone: the action, outputs and dependency files joined
/// to their flag, temporaries, traces, -Werror and the sides to compile.
bool clangDropped(llvm::StringRef Arg) {
  return Arg.starts_with("-o") || Arg == "-c" || Arg == "-S" || Arg == "-E" ||
         Arg == "-fsyntax-only" || Arg == "-M" || Arg == "-MM" ||
         Arg == "-MD" || Arg == "-MMD" || Arg == "-MP" || Arg == "-MG" ||
         Arg.starts_with("-MF") || Arg.starts_with("-MT") ||
         Arg.starts_with("-MQ") || Arg.starts_with("-MJ") ||
         Arg.starts_with("-Werror") || Arg == "-pedantic-errors" ||
         Arg.starts_with("-save-temps") || Arg.starts_with("-ftime-trace") ||
         Arg.starts_with("-fcrash-diagnostics") || Arg == "--cuda-host-only" ||
         Arg == "--cuda-device-only" || Arg == "--cuda-compile-host-device" ||
         Arg.starts_with("-emit-") || Arg.starts_with("-fmodules-cache-path") ||
         Arg.starts_with("-Wl,") || Arg.starts_with("-Wa,") ||
         Arg.starts_with("-Wp,");
}

/// `--cuda-gpu-arch=`, `--offload-arch=` and their `--no-` forms: the targets
/// they add to \p F or remove from it. False for any other flag.
bool takeClangArch(llvm::StringRef Arg, DeviceFlags &F) {
  if (Arg.consume_front("--cuda-gpu-arch=") ||
      Arg.consume_front("--offload-arch=")) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Arg.split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts)
      if (auto Parsed = parseArch(P))
        addTarget(F, {Parsed->name(), Parsed->cudaArchMacro()});
    return true;
  }
  if (Arg.consume_front("--no-cuda-gpu-arch=") ||
      Arg.consume_front("--no-offload-arch=")) {
    if (Arg == "all")
      F.Targets.clear();
    else if (auto Parsed = parseArch(Arg))
      F.Targets.erase(std::remove_if(F.Targets.begin(), F.Targets.end(),
                                     [&](const DeviceTarget &T) {
                                       return T.Real == Parsed->name();
                                     }),
                      F.Targets.end());
    return true;
  }
  return false;
}

/// Any other Clang flag at \p I: passed on with its values, as many as Clang's
/// own option table says (`-isystem dir`, `-Xarch_sm_80 -DX`); a value that
/// would load code (`-Xopenmp-target -fplugin=p.so`) refuses both. \p I is
/// left on the last argument read.
void takeClangFlag(const std::vector<std::string> &A, size_t &I,
                   DeviceFlags &F) {
  llvm::StringRef Arg = A[I];
  const unsigned Values =
      std::min<size_t>(clangValuesAfter(Arg), A.size() - 1 - I);
  bool Loads = false;
  for (unsigned V = 1; V <= Values; ++V) {
    llvm::StringRef Value = A[I + V];
    Loads |= isPluginFlag(Value) || isPluginCc1Flag(Value) ||
             Value == "-Xclang" || Value == "-mllvm";
  }
  if (Loads) {
    std::string Refused = Arg.str();
    for (unsigned V = 1; V <= Values; ++V)
      Refused += " " + A[I + V];
    F.Refused.push_back(Refused);
    I += Values;
    return;
  }
  F.ClangArgs.push_back(Arg.str());
  for (unsigned V = 0; V < Values; ++V)
    F.ClangArgs.push_back(A[++I]);
}

} // namespace

DeviceFlags translateClang(const CompileCommand &Cmd) {
  DeviceFlags F;
  F.IsCuda = isCudaExtension(Cmd.File);
  const auto &A = Cmd.Arguments;
  std::vector<std::string> Removed;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    auto Next = [&]() -> llvm::StringRef {
      return I + 1 < A.size() ? llvm::StringRef(A[++I]) : "";
    };
    if (!Arg.starts_with("-") || Arg == "-")
      continue; // An input: the source itself, or another file.
    if (isPluginFlag(Arg)) {
      refusePluginFlag(A, I, F);
      continue;
    }
    if (Arg == "-Xclang") {
      takeXclang(A, I, F);
      continue;
    }
    if (Arg == "-mllvm") {
      // As above: dropped, and refused aloud when it would load code.
      if (llvm::StringRef V = Next(); V.starts_with("-load"))
        F.Refused.push_back("-mllvm " + V.str());
      continue;
    }
    if (takeClangArch(Arg, F))
      continue;
    if (Arg.consume_front("--cuda-path=")) {
      F.CudaPath = Arg.str();
      continue;
    }
    if (Arg == "-fgpu-rdc" || Arg == "-fcuda-rdc") {
      F.Rdc = true;
      continue;
    }
    if (Arg == "-fno-gpu-rdc") {
      F.Rdc = false;
      continue;
    }
    if (Arg == "-x" || Arg.starts_with("-x")) {
      llvm::StringRef Lang = Arg == "-x" ? Next() : Arg.drop_front(2);
      F.IsCuda = Lang == "cuda" || Lang == "cu";
      continue;
    }
    if (Arg == "-Xarch_device") {
      llvm::StringRef V = Next();
      if (isPluginFlag(V))
        F.Refused.push_back("-Xarch_device " + V.str());
      else
        F.ClangArgs.push_back(V.str());
      continue;
    }
    // Flags with effects outside the parse (outputs, dependency files,
    // temporaries) or that would turn harmless warnings into errors.
    if (clangDroppedWithValue(Arg)) {
      Next();
      continue;
    }
    if (clangDropped(Arg))
      continue;
    takeClangFlag(A, I, F);
  }
  return F;
}

//===-- nvcc -------------------------------------------------------------===//

/// `sm_86`, `compute_80`, `[sm_80,compute_80]`, `"sm_80,sm_86"` -> parts.
llvm::SmallVector<llvm::StringRef, 4> archList(llvm::StringRef V) {
  V = V.trim("\"'");
  V = V.trim("[]");
  llvm::SmallVector<llvm::StringRef, 4> Out;
  V.split(Out, ',', -1, false);
  for (auto &P : Out)
    P = P.trim().trim("\"'");
  return Out;
}

/// A -gencode value: `arch=compute_80,code=[sm_80,compute_80]`.
void addGencode(DeviceFlags &F, llvm::StringRef V) {
  V = V.trim("\"'");
  llvm::StringRef ArchPart, CodePart;
  // Split at ",code=" (code's list may hold commas itself).
  size_t C = V.find("code=");
  if (C == llvm::StringRef::npos)
    return;
  ArchPart = V.take_front(C).rtrim(',');
  CodePart = V.drop_front(C + 5);
  ArchPart.consume_front("arch=");
  auto Virt = parseArch(ArchPart);
  for (llvm::StringRef Code : archList(CodePart)) {
    auto Real = parseArch(Code);
    if (!Real)
      continue;
    unsigned CudaArch = Virt ? Virt->cudaArchMacro() : Real->cudaArchMacro();
    // A PTX-only code (compute_XX) is analysed as sm_XX, as a JIT target unless
    // a real code for the same architecture is built too
    // (code=[sm_80,compute_80]).
    addTarget(F, {Real->name(), CudaArch, Code.starts_with("compute_")});
  }
}

void translateHostFlags(DeviceFlags &F, llvm::StringRef List) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  List.split(Parts, ',', -1, false);
  for (size_t I = 0; I < Parts.size(); ++I) {
    llvm::StringRef P = Parts[I].trim().trim("\"'");
    if (P.starts_with("-D") || P.starts_with("-U") || P.starts_with("-I") ||
        P.starts_with("-std=") || P.starts_with("-isystem")) {
      F.ClangArgs.push_back(P.str());
      if ((P == "-D" || P == "-U" || P == "-I" || P == "-isystem") &&
          I + 1 < Parts.size())
        F.ClangArgs.push_back(Parts[++I].trim().str());
    }
  }
}

/// The targets of nvcc's `-arch` (the last one given) and `-code` values.
void addArchTargets(DeviceFlags &F, const std::vector<std::string> &ArchValues,
                    const std::vector<std::string> &CodeValues) {
  for (const std::string &AV : ArchValues) {
    for (llvm::StringRef V : archList(AV)) {
      if (V == "native") {
        // The GPU of the machine that builds: unknown here. Documented choice:
        // nvcc's default architecture, with a warning for the run.
        F.NativeArch = true;
        auto P = parseArch(DefaultArch);
        addTarget(F, {P->name(), P->cudaArchMacro()});
        continue;
      }
      if (V == "all" || V == "all-major") {
        for (const std::string &R : nvccRealArchs()) {
          auto P = parseArch(R);
          if (V == "all-major" && P->Number % 10 != 0)
            continue;
          addTarget(F, {P->name(), P->cudaArchMacro()});
        }
        continue;
      }
      auto Virt = parseArch(V);
      if (!Virt)
        continue;
      if (CodeValues.empty()) {
        // -arch=sm_XX builds sm_XX and its PTX; -arch=compute_XX only the PTX.
        addTarget(F, {Virt->name(), Virt->cudaArchMacro(),
                      V.starts_with("compute_")});
        continue;
      }
      for (const std::string &CV : CodeValues)
        for (llvm::StringRef Code : archList(CV))
          if (auto Real = parseArch(Code))
            addTarget(F, {Real->name(), Virt->cudaArchMacro(),
                          Code.starts_with("compute_")});
    }
  }
}

/// An nvcc flag split into its name and value, and the option it is.
struct NvccFlag {
  const NvccOption *Option = nullptr; ///< Null: not one of nvcc's.
  llvm::StringRef Name, Value;
  bool HasValue = false; ///< The value was in the flag (`-x=cu`, `-I/path`).
};

/// \p Arg as an nvcc flag: `--name=value`, or a value attached to a short
/// flag (`-I/path`, `-DNAME=1`).
NvccFlag lookUpNvccFlag(llvm::StringRef Arg) {
  NvccFlag Flag;
  Flag.Name = Arg;
  if (size_t Eq = Arg.find('='); Eq != llvm::StringRef::npos) {
    Flag.Name = Arg.take_front(Eq);
    Flag.Value = Arg.drop_front(Eq + 1);
    Flag.HasValue = true;
  }
  Flag.Option = documentedNvccOption(Flag.Name);
  // Attached values: -I/path, -DNAME=1, -Ufoo, -lfoo, -L/dir, -O3.
  if (!Flag.Option && !Flag.HasValue) {
    for (const char *Short : {"-I", "-D", "-U", "-l", "-L"}) {
      if (Arg.size() > 2 && Arg.starts_with(Short)) {
        Flag.Option = findNvccOption(Short);
        Flag.Name = Short;
        Flag.Value = Arg.drop_front(2);
        Flag.HasValue = true;
        break;
      }
    }
  }
  if (!Flag.Option && Flag.HasValue && Flag.Name.starts_with("-D")) {
    // -DNAME=VALUE
    Flag.Option = findNvccOption("-D");
    Flag.Value = Arg.drop_front(2);
  }
  return Flag;
}

/// What an nvcc command line says beyond single flags: the -arch and -code
/// values (applied at its end) and whether unknown flags go to the host
/// compiler.
struct NvccScan {
  std::vector<std::string> ArchValues, CodeValues;
  bool ForwardUnknown = false;
};

/// Does what option \p O says with its \p Value.
void applyNvccOption(const NvccOption &O, llvm::StringRef Value, DeviceFlags &F,
                     NvccScan &Scan) {
  switch (O.Action) {
  case NvccAction::Drop:
    break;
  case NvccAction::Keep:
    F.ClangArgs.push_back(O.Clang);
    F.ClangArgs.push_back(Value.str());
    break;
  case NvccAction::Std:
    F.ClangArgs.push_back("-std=" + Value.str());
    break;
  case NvccAction::Language:
    F.IsCuda = Value == "cu" || Value == "cuda";
    break;
  case NvccAction::Arch:
    // As nvcc: the last -arch counts (`-arch=sm_80 -arch=sm_90` builds sm_90
    // only).
    Scan.ArchValues = {Value.str()};
    break;
  case NvccAction::Code:
    Scan.CodeValues.push_back(Value.str());
    break;
  case NvccAction::Gencode:
    addGencode(F, Value);
    break;
  case NvccAction::Define:
    F.ClangArgs.push_back(std::string("-D") + O.Clang);
    break;
  case NvccAction::DefaultStream:
    if (Value == "per-thread")
      F.ClangArgs.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
    break;
  case NvccAction::Rdc:
    F.Rdc = Value == "true" || Value == "1";
    break;
  case NvccAction::RdcOn:
    F.Rdc = true;
    break;
  case NvccAction::HostCompiler:
    translateHostFlags(F, Value);
    break;
  case NvccAction::ForwardUnknown:
    Scan.ForwardUnknown = true;
    break;
  case NvccAction::MaxRegisters: {
    unsigned long long N = 0;
    if (!Value.getAsInteger(10, N) && N > 0)
      F.MaxRegisters = N;
    break;
  }
  }
}

DeviceFlags translateNvcc(const CompileCommand &Cmd) {
  DeviceFlags F;
  F.IsNvcc = true;
  F.IsCuda = isCudaExtension(Cmd.File);
  const auto &A = Cmd.Arguments;
  NvccScan Scan;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    if (!Arg.starts_with("-") || Arg == "-")
      continue; // An input.
    if (isPluginFlag(Arg)) {
      refusePluginFlag(A, I, F);
      continue;
    }
    NvccFlag Flag = lookUpNvccFlag(Arg);
    if (!Flag.Option) {
      // nvcc passes unknown flags to the host compiler with
      // -forward-unknown-to-host-compiler; the host compiler's flags do not
      // change the device-side parse.
      bool HostLike = Arg.starts_with("-W") || Arg.starts_with("-f") ||
                      Arg.starts_with("-m") || Arg.starts_with("-O") ||
                      Arg.starts_with("-g") || Arg == "-pthread";
      if (!(Scan.ForwardUnknown && HostLike) && !Arg.starts_with("-O"))
        F.Unknown.push_back(Flag.Name.str());
      continue;
    }
    if (Flag.Option->TakesValue && !Flag.HasValue) {
      if (I + 1 >= A.size())
        break;
      Flag.Value = A[++I];
    }
    applyNvccOption(*Flag.Option, Flag.Value, F, Scan);
  }

  // -arch / -code, after -gencode (both may appear; nvcc adds them together).
  addArchTargets(F, Scan.ArchValues, Scan.CodeValues);
  return F;
}

} // namespace

bool argumentsLookLikeNvcc(const std::vector<std::string> &Args) {
  bool Nvcc = false;
  for (llvm::StringRef Arg : Args) {
    llvm::StringRef Name = Arg.take_until([](char C) { return C == '='; });
    // Clang's own CUDA spellings: a clang command.
    if (llvm::is_contained({"--cuda-gpu-arch", "--offload-arch", "--cuda-path",
                            "-fgpu-rdc", "--cuda-device-only",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "--no-cuda-gpu-arch", "--no-offload-arch"},
                           Name))
      return false;
    // Spellings both compilers share say nothing; any other of nvcc's says
    // nvcc.
    if (const NvccOption *O = findNvccOption(Name);
        O && !llvm::is_contained({"-I",       "-isystem",
                                  "-D",       "-U",
                                  "-include", "-std",
                                  "-x",       "-o",
                                  "-MF",      "-MT",
                                  "-l",       "-L",
                                  "-c",       "-g",
                                  "-E",       "-w",
                                  "-M",       "-MD",
                                  "-MMD",     "-v",
                                  "-shared",  "-O0",
                                  "-O1",      "-O2",
                                  "-O3",      "-Os",
                                  "-Og",      "-Wall",
                                  "-Wextra",  "-pedantic",
                                  "-fPIC",    "-pthread",
                                  "-DNDEBUG", "-Werror",
                                  "-m64",     "-Xlinker",
                                  "-pg",      "-ftemplate-depth",
                                  "-t"},
                                 Name))
      Nvcc = true;
  }
  return Nvcc;
}

DeviceFlags translateCommand(const CompileCommand &Cmd) {
  if (!Cmd.Arguments.empty() && isNvcc(Cmd.Arguments[0]))
    return translateNvcc(Cmd);
  return translateClang(Cmd);
}

} // namespace frontend
} // namespace tilefit
