//===- fuzz_lsp.cpp - The language server's framing and dispatch ----------===//
//
// The first byte picks what the rest is fed to:
//   even  the Content-Length framing reader alone, message after message to the
//   end odd   a whole server session (tilefit lsp) reading the rest as its
//   standard input. The
//         analysis is a stand-in that parses nothing: it returns a small report
//         about the document (a kernel, an error with notes, a launch), so that
//         diagnostics, hover, inlay hints and code lenses are computed on the
//         fuzzed text and positions.
//
//===----------------------------------------------------------------------===//
#include "TempDir.h"

#include "tilefit/lsp/Protocol.h"
#include "tilefit/lsp/Server.h"
#include "tilefit/lsp/Transport.h"

#include <sstream>

using namespace tilefit;

namespace {

driver::AnalyzeResult standIn(const driver::AnalyzeRequest &Req,
                              driver::Session &) {
  driver::AnalyzeResult Out;
  for (const frontend::CompileCommand &C : Req.Commands) {
    const std::string &F = C.File;
    KernelReport K;
    K.Name = "k";
    K.Mangled = "_Z1kv";
    K.Loc = {F, 2, 17};
    K.TranslationUnit = F;
    K.Arch = K.ParsedAs = "sm_90";
    K.StaticBytes = 53248;
    SharedVar V;
    V.Name = V.QualifiedName = "tile";
    V.Loc = {F, 3, 20};
    V.Type = "float[13312]";
    V.Bytes = 53248;
    V.Align = 4;
    K.Allocations.push_back({V, 0, false, false});
    K.Launches.push_back({{F, 9, 3}, 1024, "", 128, 54272, "", {}});
    K.Occupancy.BlocksPerSm = 4;
    K.Occupancy.LimitedBy = "shared memory";
    Out.R.Kernels.push_back(K);
    Diagnostic D;
    D.Level = Severity::Error;
    D.Check = "tilefit-static-limit";
    D.Message =
        "kernel 'k' uses 53248 bytes (52 KiB) of static shared memory on sm_90";
    D.Loc = K.Loc;
    D.Arch = "sm_90";
    D.TranslationUnit = F;
    D.Kernel = "k";
    D.Notes.push_back({"'tile' takes 53248 bytes", V.Loc});
    D.Notes.push_back({"launched here", {F, 9, 3}});
    Out.R.Diagnostics.push_back(D);
    Diagnostic W = D;
    W.Level = Severity::Warning;
    W.Check = "tilefit-budget";
    W.Loc = {F, 1000000, 1};
    Out.R.Diagnostics.push_back(W);
  }
  return Out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  std::string Rest(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  if (Data[0] % 2 == 0) {
    std::istringstream In(Rest);
    for (int I = 0; I < 1000; ++I) {
      lsp::Incoming M = lsp::readMessage(In);
      if (M.K == lsp::Incoming::End)
        break;
    }
    return 0;
  }
  std::istringstream In(Rest);
  std::ostringstream Out;
  lsp::StreamTransport T(In, Out);
  lsp::ServerOptions Opts;
  Opts.CompileCommandsDir =
      fuzz::TempDir::path(); // Empty: every file gets the fallback command.
  Opts.DebounceMs = 0;
  Opts.Version = "fuzz";
  Opts.Analyze = standIn;
  lsp::Server S(T, std::move(Opts));
  (void)S.run();
  // Whatever the server wrote must be framed messages a client can read.
  std::istringstream Written(Out.str());
  while (true) {
    lsp::Incoming M = lsp::readMessage(Written);
    if (M.K == lsp::Incoming::End)
      break;
    if (M.K != lsp::Incoming::Message)
      __builtin_trap();
  }
  return 0;
}
