//===- Server.cpp - tilefit's language server -----------------------------===//
#include "tilefit/lsp/Server.h"

#include "tilefit/driver/CommandLookup.h"
#include "tilefit/frontend/Config.h"
#include "tilefit/lsp/Features.h"
#include "tilefit/lsp/Protocol.h"
#include "tilefit/lsp/Scheduler.h"
#include "tilefit/model/AnalysisOptions.h"
#include "tilefit/model/Checks.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace tilefit {
namespace lsp {

using json = nlohmann::json;

namespace {

/// A request about a file, answered from the analysis of its current text.
struct Pending {
  json Id;
  std::string Method;
  std::string Path;
  json Params;
};

} // namespace

struct Server::State {
  State(Transport &T, ServerOptions O)
      : T(T), Opts(std::move(O)), Lookup(Opts.CompileCommandsDir),
        Session(sessionOptions()),
        Sched(
            std::chrono::milliseconds(Opts.DebounceMs),
            [this](AnalysisJob Job) { return analyse(std::move(Job)); },
            [this](const FileAnalysis &A) { publish(A); }) {}

  /// The session of every analysis: the command line's cache settings, this
  /// server's preambles, messages to the client's log, and configuration files
  /// from the workspace only (like the compilation database: nothing above it).
  driver::Session::Options sessionOptions() {
    driver::Session::Options S = Opts.SessionBase;
    S.Quiet = true;
    S.Progress = false;
    S.ShowCommands = false;
    S.KeepPreambles = Opts.Preambles;
    S.MayReadConfig = [this](const std::string &P) {
      return Lookup.inRoots(P);
    };
    S.Message = [this](const char *Level, const std::string &Text) {
      log(std::string(Level) == "error"     ? MessageType::Error
          : std::string(Level) == "warning" ? MessageType::Warning
                                            : MessageType::Info,
          "tilefit: " + std::string(Level) + ": " + Text);
    };
    return S;
  }

  Transport &T;
  ServerOptions Opts;
  driver::CommandLookup Lookup;

  // Set on the message thread during initialize, read-only afterwards.
  FeatureOptions Features;
  bool Initialized = false;
  bool ShutdownRequested = false;

  std::mutex SettingsLock;
  frontend::Config
      Settings; ///< From initializationOptions and didChangeConfiguration.
  // Used by the worker thread only (from analyse).
  std::map<std::string, std::string>
      CommandOrigins; ///< Last logged command origin per file.
  /// What the analyses share: the preambles of the files analysed (their
  /// #include blocks, precompiled: the next analysis of a file parses only what
  /// follows them), the precompiled headers, the editor's buffers of the next
  /// run.
  driver::Session Session;
  /// The open files and when each is analysed: its worker thread calls analyse
  /// and publish. Last, so that its worker stops before the rest goes.
  Scheduler Sched;

  // Messages out.
  void send(json Msg) {
    Msg["jsonrpc"] = "2.0";
    T.write(Msg);
  }
  void reply(const json &Id, json Result) {
    send({{"id", Id}, {"result", std::move(Result)}});
  }
  void replyError(const json &Id, int Code, const std::string &Message) {
    send({{"id", Id}, {"error", {{"code", Code}, {"message", Message}}}});
  }
  void notify(const std::string &Method, json Params) {
    send({{"method", Method}, {"params", std::move(Params)}});
  }
  void log(MessageType Type, const std::string &Message) {
    notify("window/logMessage",
           {{"type", static_cast<int>(Type)}, {"message", Message}});
  }

  // The message thread.
  int run();
  bool dispatch(const json &Msg); ///< False after `exit`.
  void request(const json &Id, const std::string &Method, const json &Params);
  void notification(const std::string &Method, const json &Params);
  json initialize(const json &Params);
  void applySettings(const json &Raw);
  std::string pathOf(const json &Params);
  void didChange(const DidChangeParams &Change);
  void answer(const Pending &P, const FileAnalysis *A);
  void fileRequest(const json &Id, const std::string &Method,
                   const json &Params);

  // The worker (called by Sched).
  std::shared_ptr<const Report> analyse(AnalysisJob Job);
  void publish(const FileAnalysis &A);
};

namespace {

FeatureOptions featureOptions(const InitializeParams &Params,
                              const std::string &DocsUri) {
  FeatureOptions F;
  F.DocsUri = DocsUri;
  F.Encoding =
      Params.Utf8Positions ? PositionEncoding::Utf8 : PositionEncoding::Utf16;
  F.RelatedInformation = Params.RelatedInformation;
  return F;
}

} // namespace

json Server::State::initialize(const json &Raw) {
  const InitializeParams Params = readInitializeParams(Raw);
  Features = featureOptions(Params, Opts.DocsUri);
  const PositionEncoding Encoding = Features.Encoding;
  if (!Params.InitializationOptions.is_null())
    applySettings(Params.InitializationOptions);
  // The workspace: compilation databases (and the response files they name) are
  // read only inside it. Files the editor opens are read wherever they are: it
  // named them.
  Lookup.setRoots(Params.Roots);
  json Caps = {
      {"positionEncoding", encodingName(Encoding)},
      {"textDocumentSync",
       {{"openClose", true},
        {"change", 2},
        {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"inlayHintProvider", true},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"documentSymbolProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
  };
  return {{"capabilities", Caps},
          {"serverInfo", {{"name", "tilefit"}, {"version", Opts.Version}}}};
}

void Server::State::applySettings(const json &Raw) {
  std::optional<EditorSettings> New = readEditorSettings(Raw);
  if (!New)
    return;
  for (const EditorSettings::Problem &P : New->Problems)
    log(P.Type, "tilefit: " + P.Message);
  std::lock_guard<std::mutex> Guard(SettingsLock);
  Settings = std::move(New->Config);
}

std::string Server::State::pathOf(const json &Params) {
  return readDocumentRef(Params).Path;
}

void Server::State::answer(const Pending &P, const FileAnalysis *A) {
  const Report *R = A ? &A->R : nullptr;
  try {
    if (P.Method == "textDocument/hover") {
      const HoverParams H = readHoverParams(P.Params);
      reply(P.Id,
            R ? hoverAt(*R, P.Path, A->Doc, H.Pos, Features) : json(nullptr));
    } else if (P.Method == "textDocument/inlayHint") {
      const InlayHintParams H = readInlayHintParams(P.Params);
      reply(P.Id, R ? inlayHintsFor(*R, P.Path, A->Doc, H.Start.Line,
                                    H.End.Line, Features)
                    : json::array());
    } else if (P.Method == "textDocument/codeLens") {
      reply(P.Id,
            R ? codeLensesFor(*R, P.Path, A->Doc, Features) : json::array());
    } else if (P.Method == "textDocument/codeAction") {
      const CodeActionParams C = readCodeActionParams(P.Params);
      reply(P.Id, A ? codeActionsFor(A->Uri, A->Doc, C.Diagnostics, Features)
                    : json::array());
    } else if (P.Method == "textDocument/documentSymbol") {
      reply(P.Id, R ? documentSymbolsFor(*R, P.Path, A->Doc, Features)
                    : json::array());
    }
  } catch (const BadParams &E) {
    replyError(P.Id, InvalidParams, E.what());
  } catch (const json::exception &E) {
    replyError(P.Id, InvalidParams, E.what());
  }
}

void Server::State::fileRequest(const json &Id, const std::string &Method,
                                const json &Params) {
  Pending P{Id, Method, pathOf(Params), Params};
  const std::string Path = P.Path;
  Sched.whenCurrent(Path, Id, [this, P = std::move(P)](const FileAnalysis *A) {
    answer(P, A);
  });
}

void Server::State::request(const json &Id, const std::string &Method,
                            const json &Params) {
  if (Method == "initialize") {
    if (Initialized) {
      replyError(Id, InvalidRequest, "initialize was already received");
      return;
    }
    json Result = initialize(Params);
    Initialized = true;
    Sched.start();
    reply(Id, Result);
    return;
  }
  if (!Initialized) {
    replyError(Id, ServerNotInitialized, "the server is not initialized");
    return;
  }
  if (ShutdownRequested) {
    replyError(Id, InvalidRequest,
               "shutdown was requested; only 'exit' is accepted");
    return;
  }
  if (Method == "shutdown") {
    ShutdownRequested = true;
    for (const json &Waiting : Sched.shutdown())
      replyError(Waiting, RequestCancelled, "the server is shutting down");
    reply(Id, nullptr);
    return;
  }
  if (Method == "textDocument/hover" || Method == "textDocument/inlayHint" ||
      Method == "textDocument/codeLens" ||
      Method == "textDocument/documentSymbol" ||
      Method == "textDocument/codeAction") {
    fileRequest(Id, Method, Params);
    return;
  }
  replyError(Id, MethodNotFound,
             "method '" + Method + "' is not supported by tilefit");
}

void Server::State::didChange(const DidChangeParams &Change) {
  const std::string &Path = Change.Doc.Path;
  const bool Open = Sched.change(Path, Change.Doc.Version, [&](Document &Doc) {
    for (const json &C : Change.Changes)
      if (!Doc.applyChange(C, Features.Encoding)) {
        log(MessageType::Error, "tilefit: malformed change to " + Path +
                                    "; the document may be out of sync");
        break;
      }
  });
  if (!Open)
    log(MessageType::Warning,
        "tilefit: didChange for a document that is not open: " + Path);
}

void Server::State::notification(const std::string &Method,
                                 const json &Params) {
  if (!Initialized || ShutdownRequested)
    return; // Dropped, as the protocol asks (exit is handled by the caller).
  if (Method == "textDocument/didOpen") {
    DidOpenParams Open = readDidOpenParams(Params);
    Sched.open(Open.Doc.Path, std::move(Open.Doc.Uri),
               std::move(Open.Doc.Version), std::move(Open.Text));
  } else if (Method == "textDocument/didChange") {
    didChange(readDidChangeParams(Params));
  } else if (Method == "textDocument/didSave") {
    Sched.saved(pathOf(Params));
  } else if (Method == "textDocument/didClose") {
    if (std::optional<std::string> Uri = Sched.close(pathOf(Params)))
      notify("textDocument/publishDiagnostics",
             {{"uri", *Uri}, {"diagnostics", json::array()}});
  } else if (Method == "workspace/didChangeConfiguration") {
    applySettings(Params.value("settings", json(nullptr)));
    Sched.reanalyseAll();
  } else if (Method == "$/cancelRequest") {
    if (std::optional<json> Id = Sched.cancel(readCancelId(Params)))
      replyError(*Id, RequestCancelled, "cancelled");
  }
  // initialized, $/setTrace and other notifications: nothing to do.
}

bool Server::State::dispatch(const json &Msg) {
  if (!Msg.is_object()) {
    replyError(nullptr, InvalidRequest, "a message must be a JSON object");
    return true;
  }
  json Id = Msg.contains("id") ? Msg["id"] : json();
  bool HasId = Msg.contains("id");
  if (HasId && !Id.is_string() && !Id.is_number_integer()) {
    replyError(nullptr, InvalidRequest, "'id' must be an integer or a string");
    return true;
  }
  if (!Msg.contains("method")) {
    if (!HasId || (!Msg.contains("result") && !Msg.contains("error")))
      replyError(HasId ? Id : json(nullptr), InvalidRequest,
                 "a message without 'method'");
    return true; // A response to a request of ours: tilefit sends none that
                 // need one.
  }
  if (Msg.value("jsonrpc", json()) != "2.0") {
    if (HasId)
      replyError(Id, InvalidRequest, "'jsonrpc' must be \"2.0\"");
    return true;
  }
  if (!Msg["method"].is_string()) {
    if (HasId)
      replyError(Id, InvalidRequest, "'method' must be a string");
    return true;
  }
  std::string Method = Msg["method"].get<std::string>();
  // Absent and null params are the same: none.
  json Params = Msg.contains("params") && !Msg["params"].is_null()
                    ? Msg["params"]
                    : json::object();
  if (!Params.is_object() && !Params.is_array()) {
    if (HasId)
      replyError(Id, InvalidParams, "'params' must be an object or an array");
    return true;
  }
  if (Method == "exit")
    return false;
  try {
    if (HasId)
      request(Id, Method, Params);
    else
      notification(Method, Params);
  } catch (const BadParams &E) {
    if (HasId)
      replyError(Id, InvalidParams, E.what());
    else
      log(MessageType::Error, "tilefit: ignored '" + Method + "': " + E.what());
  } catch (const json::exception &E) {
    if (HasId)
      replyError(Id, InvalidParams, E.what());
    else
      log(MessageType::Error, "tilefit: ignored '" + Method + "': " + E.what());
  } catch (const std::exception &E) {
    if (HasId)
      replyError(Id, InternalError, E.what());
    else
      log(MessageType::Error,
          "tilefit: error in '" + Method + "': " + E.what());
  }
  return true;
}

int Server::State::run() {
  while (true) {
    Incoming In = T.read();
    if (In.K == Incoming::End) {
      if (!In.Error.empty())
        log(MessageType::Error, "tilefit: " + In.Error);
      break;
    }
    if (In.K == Incoming::BadHeader) {
      replyError(nullptr, InvalidRequest, In.Error);
      continue;
    }
    if (In.K == Incoming::BadJson) {
      replyError(nullptr, ParseError, "the message is not JSON: " + In.Error);
      continue;
    }
    if (!dispatch(In.Body))
      break;
  }
  Sched.stop();
  return ShutdownRequested ? 0 : 1;
}

std::shared_ptr<const Report> Server::State::analyse(AnalysisJob Job) {
  const std::string &Path = Job.Path;
  driver::AnalyzeRequest Req = Opts.Base;
  Session.Unsaved = std::move(Job.Unsaved);
  {
    std::lock_guard<std::mutex> Guard(SettingsLock);
    Req.Overrides.overlay(Settings);
  }
  // The editor shows what the file's headers cost it too, at the line that
  // includes them.
  Req.Overrides.HeaderFilterRegex = ".*";
  Session.Cancelled = Job.Cancelled;

  driver::FoundCommand Found = Lookup.lookup(Path);
  Req.Commands = {Found.Command};
  for (const std::string &W : Found.Warnings)
    log(MessageType::Warning, "tilefit: " + W);
  const frontend::PreambleStore *Preambles = Session.preambles();
  const unsigned BuiltBefore = Preambles ? Preambles->builds() : 0,
                 ReusedBefore = Preambles ? Preambles->reuses() : 0;
  const frontend::FactsMemo *Memo = Session.memo();
  const unsigned KeptBefore = Memo ? Memo->hits() : 0;
  driver::AnalyzeResult Result =
      Opts.Analyze ? Opts.Analyze(Req, Session) : driver::analyze(Req, Session);
  Session.Cancelled = nullptr;
  if (unsigned Built = Preambles ? Preambles->builds() - BuiltBefore : 0,
      Reused = Preambles ? Preambles->reuses() - ReusedBefore : 0;
      Built || Reused)
    log(MessageType::Log, "tilefit: preambles of " + Path + ": " +
                              std::to_string(Reused) + " reused, " +
                              std::to_string(Built) + " built");
  if (unsigned Kept = Memo ? Memo->hits() - KeptBefore : 0)
    log(MessageType::Log, "tilefit: facts of " + Path +
                              " kept from the last analysis (no line of code "
                              "changed): " +
                              std::to_string(Kept) + " parses saved");
  if (CommandOrigins[Path] != Found.Command.Origin) {
    CommandOrigins[Path] = Found.Command.Origin;
    log(MessageType::Info,
        "tilefit: flags for " + Path + " from " + Found.Command.Origin);
  }
  if (Result.Cancelled)
    return nullptr; // Dropped by Sched as stale.
  return std::make_shared<const Report>(std::move(Result.R));
}

void Server::State::publish(const FileAnalysis &A) {
  // A broken configuration or capacity database: the driver has said so on the
  // file, at its first line.
  for (const Diagnostic &D : A.R.ToolMessages)
    log(D.Level == Severity::Error ? MessageType::Error : MessageType::Warning,
        "tilefit: " + D.Message);
  json Params = {{"uri", A.Uri},
                 {"diagnostics", diagnosticsFor(A.R, A.Path, A.Doc, Features)}};
  if (!A.Version.is_null())
    Params["version"] = A.Version;
  notify("textDocument/publishDiagnostics", Params);
}

Server::Server(Transport &T, ServerOptions Opts)
    : S(std::make_unique<State>(T, std::move(Opts))) {}

Server::~Server() { S->Sched.stop(); }

int Server::run() { return S->run(); }

} // namespace lsp
} // namespace tilefit
