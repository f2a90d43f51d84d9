//===- Server.cpp - tilefit's language server -----------------------------===//
#include "tilefit/lsp/Server.h"

#include "tilefit/driver/CommandLookup.h"
#include "tilefit/frontend/Config.h"
#include "tilefit/lsp/Features.h"
#include "tilefit/lsp/Protocol.h"
#include "tilefit/model/AnalysisOptions.h"
#include "tilefit/model/Checks.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tilefit {
namespace lsp {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

/// An open document.
struct OpenDocument {
  std::string Uri;
  Document Doc;
  json Version; ///< The client's version (an integer), echoed in diagnostics.
  uint64_t Generation = 0; ///< Ours: bumped on every change.
};

/// The latest analysis of a file.
struct Analysis {
  uint64_t Generation = 0;
  std::shared_ptr<const Report> R;
};

/// A request waiting for the analysis of the current text.
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
        Session(sessionOptions()) {}

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
      log(std::string(Level) == "error"     ? 1
          : std::string(Level) == "warning" ? 2
                                            : 3,
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

  std::mutex Lock;
  std::condition_variable Wake;
  bool Stopping = false;
  std::map<std::string, OpenDocument> Docs;
  std::map<std::string, Analysis> Results;
  std::map<std::string, Clock::time_point> Dirty;
  std::string RunningPath;
  std::shared_ptr<std::atomic<bool>> RunningCancel;
  std::deque<Pending> Waiting;
  frontend::Config
      Settings; ///< From initializationOptions and didChangeConfiguration.
  std::map<std::string, std::string>
      CommandOrigins; ///< Last logged command origin per file.
  /// What the analyses share: the preambles of the files analysed (their
  /// #include blocks, precompiled: the next analysis of a file parses only what
  /// follows them), the precompiled headers, the editor's buffers of the next
  /// run. Used by the worker thread only.
  driver::Session Session;
  std::thread Worker;

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
  void log(int Type, const std::string &Message) {
    notify("window/logMessage", {{"type", Type}, {"message", Message}});
  }

  // The message thread.
  int run();
  bool dispatch(const json &Msg); ///< False after `exit`.
  void request(const json &Id, const std::string &Method, const json &Params);
  void notification(const std::string &Method, const json &Params);
  json initialize(const json &Params);
  void readSettings(const json &Raw);
  std::string pathOf(const json &Params);
  void markDirty(const std::string &Path, Clock::duration Delay);
  void answer(const Pending &P, const Analysis *A);
  void fileRequest(const json &Id, const std::string &Method,
                   const json &Params);

  // The worker.
  void work();
  void analyse(const std::string &Path, std::unique_lock<std::mutex> &Guard);
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
    readSettings(Params.InitializationOptions);
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
  };
  return {{"capabilities", Caps},
          {"serverInfo", {{"name", "tilefit"}, {"version", Opts.Version}}}};
}

void Server::State::readSettings(const json &Raw) {
  // Either {"tilefit": {...}} (VS Code's section) or the section itself.
  const json *S = &Raw;
  if (Raw.is_object() && Raw.contains("tilefit"))
    S = &Raw["tilefit"];
  if (!S->is_object())
    return;
  // Each setting is read by the configuration's own reader, under the name a
  // .tilefit.yaml gives it (JSON is YAML): the same checks, the same messages.
  // One setting that does not read is ignored, and the others apply.
  static const std::map<std::string, std::string> Keys = {
      {"architectures", "Architectures"},
      {"budget", "Budget"},
      {"checks", "Checks"},
      {"capacityDatabase", "CapacityDatabase"}};
  frontend::Config C;
  for (auto It = S->begin(); It != S->end(); ++It) {
    auto Key = Keys.find(It.key());
    if (Key == Keys.end()) {
      log(2, "tilefit: unknown setting '" + It.key() +
                 "' (known: architectures, budget, checks, capacityDatabase)");
      continue;
    }
    const std::string Text =
        json{{Key->second, It.value()}}.dump(1, ' ', false,
                                            json::error_handler_t::replace);
    llvm::Expected<frontend::Config> One =
        frontend::parseConfig(Text, "the editor's settings", "");
    if (!One) {
      log(1, "tilefit: ignored setting '" + It.key() +
                 "': " + llvm::toString(One.takeError()));
      continue;
    }
    C.overlay(*One);
  }
  std::lock_guard<std::mutex> Guard(Lock);
  Settings = C;
}

std::string Server::State::pathOf(const json &Params) {
  return readDocumentRef(Params).Path;
}

void Server::State::markDirty(const std::string &Path, Clock::duration Delay) {
  Dirty[Path] = Clock::now() + Delay;
  if (RunningPath == Path && RunningCancel)
    *RunningCancel = true;
  Wake.notify_all();
}

void Server::State::answer(const Pending &P, const Analysis *A) {
  auto DocIt = Docs.find(P.Path);
  const Report *R = A && A->R ? A->R.get() : nullptr;
  try {
    if (P.Method == "textDocument/hover") {
      const HoverParams H = readHoverParams(P.Params);
      reply(P.Id, R && DocIt != Docs.end()
                      ? hoverAt(*R, P.Path, DocIt->second.Doc, H.Pos, Features)
                      : json(nullptr));
    } else if (P.Method == "textDocument/inlayHint") {
      const InlayHintParams H = readInlayHintParams(P.Params);
      reply(P.Id, R && DocIt != Docs.end()
                      ? inlayHintsFor(*R, P.Path, DocIt->second.Doc,
                                      H.Start.Line, H.End.Line, Features)
                      : json::array());
    } else if (P.Method == "textDocument/codeLens") {
      reply(P.Id, R && DocIt != Docs.end()
                      ? codeLensesFor(*R, P.Path, DocIt->second.Doc, Features)
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
  std::lock_guard<std::mutex> Guard(Lock);
  auto Doc = Docs.find(P.Path);
  if (Doc == Docs.end()) {
    answer(P, nullptr); // Not open: nothing to say.
    return;
  }
  auto Res = Results.find(P.Path);
  if (Res != Results.end() &&
      Res->second.Generation == Doc->second.Generation) {
    answer(P, &Res->second);
    return;
  }
  Waiting.push_back(std::move(P));
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
    Worker = std::thread([this] { work(); });
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
    {
      std::lock_guard<std::mutex> Guard(Lock);
      for (const Pending &P : Waiting)
        replyError(P.Id, RequestCancelled, "the server is shutting down");
      Waiting.clear();
      Dirty.clear();
      if (RunningCancel)
        *RunningCancel = true;
    }
    reply(Id, nullptr);
    return;
  }
  if (Method == "textDocument/hover" || Method == "textDocument/inlayHint" ||
      Method == "textDocument/codeLens") {
    fileRequest(Id, Method, Params);
    return;
  }
  replyError(Id, MethodNotFound,
             "method '" + Method + "' is not supported by tilefit");
}

void Server::State::notification(const std::string &Method,
                                 const json &Params) {
  if (!Initialized || ShutdownRequested)
    return; // Dropped, as the protocol asks (exit is handled by the caller).
  if (Method == "textDocument/didOpen") {
    DidOpenParams Open = readDidOpenParams(Params);
    std::lock_guard<std::mutex> Guard(Lock);
    OpenDocument &D = Docs[Open.Doc.Path];
    D.Uri = Open.Doc.Uri;
    D.Doc.setText(std::move(Open.Text));
    D.Version = Open.Doc.Version;
    ++D.Generation;
    markDirty(Open.Doc.Path, Clock::duration::zero());
  } else if (Method == "textDocument/didChange") {
    const DidChangeParams Change = readDidChangeParams(Params);
    const std::string &Path = Change.Doc.Path;
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Docs.find(Path);
    if (It == Docs.end()) {
      log(2, "tilefit: didChange for a document that is not open: " + Path);
      return;
    }
    OpenDocument &D = It->second;
    for (const json &C : Change.Changes)
      if (!D.Doc.applyChange(C, Features.Encoding)) {
        log(1, "tilefit: malformed change to " + Path +
                   "; the document may be out of sync");
        break;
      }
    D.Version = Change.Doc.Version;
    ++D.Generation;
    markDirty(Path, std::chrono::milliseconds(Opts.DebounceMs));
  } else if (Method == "textDocument/didSave") {
    std::string Path = pathOf(Params);
    std::lock_guard<std::mutex> Guard(Lock);
    // The saved file may be a header, the database or the configuration of the
    // others: every open file is analysed again (the saved one first).
    if (Docs.count(Path)) {
      ++Docs[Path].Generation;
      markDirty(Path, Clock::duration::zero());
    }
    for (auto &[Other, D] : Docs)
      if (Other != Path) {
        ++D.Generation;
        markDirty(Other, std::chrono::milliseconds(1));
      }
  } else if (Method == "textDocument/didClose") {
    std::string Path = pathOf(Params);
    std::string Uri;
    {
      std::lock_guard<std::mutex> Guard(Lock);
      auto It = Docs.find(Path);
      if (It == Docs.end())
        return;
      Uri = It->second.Uri;
      Docs.erase(It);
      Results.erase(Path);
      Dirty.erase(Path);
      if (RunningPath == Path && RunningCancel)
        *RunningCancel = true;
      for (auto P = Waiting.begin(); P != Waiting.end();)
        if (P->Path == Path) {
          answer(*P, nullptr);
          P = Waiting.erase(P);
        } else {
          ++P;
        }
    }
    notify("textDocument/publishDiagnostics",
           {{"uri", Uri}, {"diagnostics", json::array()}});
  } else if (Method == "workspace/didChangeConfiguration") {
    readSettings(Params.value("settings", json(nullptr)));
    std::lock_guard<std::mutex> Guard(Lock);
    for (auto &[Path, D] : Docs) {
      ++D.Generation;
      markDirty(Path, Clock::duration::zero());
    }
  } else if (Method == "$/cancelRequest") {
    const json Id = readCancelId(Params);
    std::lock_guard<std::mutex> Guard(Lock);
    for (auto P = Waiting.begin(); P != Waiting.end(); ++P)
      if (P->Id == Id) {
        replyError(P->Id, RequestCancelled, "cancelled");
        Waiting.erase(P);
        break;
      }
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
      log(1, "tilefit: ignored '" + Method + "': " + E.what());
  } catch (const json::exception &E) {
    if (HasId)
      replyError(Id, InvalidParams, E.what());
    else
      log(1, "tilefit: ignored '" + Method + "': " + E.what());
  } catch (const std::exception &E) {
    if (HasId)
      replyError(Id, InternalError, E.what());
    else
      log(1, "tilefit: error in '" + Method + "': " + E.what());
  }
  return true;
}

int Server::State::run() {
  while (true) {
    Incoming In = T.read();
    if (In.K == Incoming::End) {
      if (!In.Error.empty())
        log(1, "tilefit: " + In.Error);
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
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Stopping = true;
    if (RunningCancel)
      *RunningCancel = true;
  }
  Wake.notify_all();
  if (Worker.joinable())
    Worker.join();
  return ShutdownRequested ? 0 : 1;
}

void Server::State::work() {
  std::unique_lock<std::mutex> Guard(Lock);
  while (!Stopping) {
    if (Dirty.empty()) {
      Wake.wait(Guard);
      continue;
    }
    auto Next = Dirty.begin();
    for (auto It = Dirty.begin(); It != Dirty.end(); ++It)
      if (It->second < Next->second)
        Next = It;
    if (Next->second > Clock::now()) {
      Wake.wait_until(Guard, Next->second);
      continue;
    }
    std::string Path = Next->first;
    Dirty.erase(Next);
    if (Docs.count(Path))
      analyse(Path, Guard);
  }
}

void Server::State::analyse(const std::string &Path,
                            std::unique_lock<std::mutex> &Guard) {
  uint64_t Generation = Docs[Path].Generation;
  driver::AnalyzeRequest Req = Opts.Base;
  Session.Unsaved.clear();
  for (const auto &[P, D] : Docs)
    Session.Unsaved[P] = D.Doc.text();
  Req.Overrides.overlay(Settings);
  // The editor shows what the file's headers cost it too, at the line that
  // includes them.
  Req.Overrides.HeaderFilterRegex = ".*";
  auto Cancel = std::make_shared<std::atomic<bool>>(false);
  Session.Cancelled = Cancel.get();
  RunningPath = Path;
  RunningCancel = Cancel;
  Guard.unlock();

  driver::FoundCommand Found = Lookup.lookup(Path);
  Req.Commands = {Found.Command};
  for (const std::string &W : Found.Warnings)
    log(2, "tilefit: " + W);
  const frontend::PreambleStore *Preambles = Session.preambles();
  const unsigned BuiltBefore = Preambles ? Preambles->builds() : 0,
                 ReusedBefore = Preambles ? Preambles->reuses() : 0;
  driver::AnalyzeResult Result =
      Opts.Analyze ? Opts.Analyze(Req, Session) : driver::analyze(Req, Session);
  Session.Cancelled = nullptr;
  if (unsigned Built = Preambles ? Preambles->builds() - BuiltBefore : 0,
      Reused = Preambles ? Preambles->reuses() - ReusedBefore : 0;
      Built || Reused)
    log(4, "tilefit: preambles of " + Path + ": " + std::to_string(Reused) +
               " reused, " + std::to_string(Built) + " built");

  Guard.lock();
  RunningPath.clear();
  RunningCancel.reset();
  if (CommandOrigins[Path] != Found.Command.Origin) {
    CommandOrigins[Path] = Found.Command.Origin;
    log(3, "tilefit: flags for " + Path + " from " + Found.Command.Origin);
  }
  auto DocIt = Docs.find(Path);
  if (Result.Cancelled || Stopping || DocIt == Docs.end() ||
      DocIt->second.Generation != Generation)
    return; // Stale: a newer edit is queued (or the file was closed).
  // A broken configuration or capacity database: the driver has said so on the
  // file, at its first line.
  for (const Diagnostic &D : Result.R.ToolMessages)
    log(D.Level == Severity::Error ? 1 : 2, "tilefit: " + D.Message);
  Analysis &A = Results[Path];
  A.Generation = Generation;
  A.R = std::make_shared<const Report>(std::move(Result.R));
  json Params = {
      {"uri", DocIt->second.Uri},
      {"diagnostics", diagnosticsFor(*A.R, Path, DocIt->second.Doc, Features)}};
  if (!DocIt->second.Version.is_null())
    Params["version"] = DocIt->second.Version;
  notify("textDocument/publishDiagnostics", Params);
  for (auto P = Waiting.begin(); P != Waiting.end();)
    if (P->Path == Path) {
      answer(*P, &A);
      P = Waiting.erase(P);
    } else {
      ++P;
    }
}

Server::Server(Transport &T, ServerOptions Opts)
    : S(std::make_unique<State>(T, std::move(Opts))) {}

Server::~Server() {
  if (S->Worker.joinable()) {
    {
      std::lock_guard<std::mutex> Guard(S->Lock);
      S->Stopping = true;
      if (S->RunningCancel)
        *S->RunningCancel = true;
    }
    S->Wake.notify_all();
    S->Worker.join();
  }
}

int Server::run() { return S->run(); }

} // namespace lsp
} // namespace tilefit
