//===- Server.h - tilefit's language server --------------------*- C++ -*-===//
//
// `tilefit lsp`: the Language Server Protocol 3.17 over a Transport. The
// message thread reads and answers; one worker thread analyses the open files
// with the same pipeline as the command line (driver::analyze), the editor's
// unsaved text in an overlay. A newer edit makes the running analysis of the
// file stale: its remaining parses are skipped and its result dropped. Requests
// about a file (hover, inlay hints, code lenses) are answered from the analysis
// of the text the editor has now, waiting for it if needed. The Scheduler
// (Scheduler.h) decides what is analysed when; the server dispatches the
// messages, runs the analyses it asks for and turns their results into
// notifications.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_LSP_SERVER_H
#define TILEFIT_LSP_SERVER_H

#include "tilefit/driver/Analyze.h"
#include "tilefit/lsp/Transport.h"

#include <functional>
#include <memory>
#include <string>

namespace tilefit {
namespace lsp {

struct ServerOptions {
  /// What every analysis starts from: the share folder, toolkit, capacity
  /// databases, configuration overrides from the command line, threads.
  driver::AnalyzeRequest Base;
  /// The session's options (the cache folder and its bound); the server sets
  /// the rest (its messages go to the client's log, configuration files only
  /// from the workspace).
  driver::Session::Options SessionBase;
  /// Look for compile_commands.json only here (--compile-commands-dir).
  std::string CompileCommandsDir;
  /// Wait this long after an edit before analysing (more edits restart the
  /// wait).
  unsigned DebounceMs = 200;
  /// Keep each file's preamble (its #include block, precompiled) between
  /// analyses.
  bool Preambles = true;
  /// The checks' documentation (codeDescription links).
  std::string DocsUri;
  std::string Version;
  /// Runs one analysis; driver::analyze when unset. The fuzzer puts a stand-in
  /// here so that it drives the protocol without parsing anything.
  std::function<driver::AnalyzeResult(const driver::AnalyzeRequest &,
                                      driver::Session &)>
      Analyze;
};

class Server {
public:
  Server(Transport &T, ServerOptions Opts);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /// Serves until `exit` or the end of the input. Returns the process's exit
  /// status: 0 after `shutdown` then `exit`, 1 otherwise (as the protocol
  /// asks).
  int run();

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace lsp
} // namespace tilefit

#endif
