//===- LspClient.cpp - A language-server client for tests -----------------===//
#include "LspClient.h"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tilefit {
namespace test {

LspClient::LspClient(const std::vector<std::string> &Argv,
                     const std::string &Cwd) {
  int In[2], Out[2];
  if (pipe(In) != 0 || pipe(Out) != 0)
    return;
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, In[0], 0);
  posix_spawn_file_actions_adddup2(&Actions, Out[1], 1);
  posix_spawn_file_actions_addclose(&Actions, In[1]);
  posix_spawn_file_actions_addclose(&Actions, Out[0]);
  if (!Cwd.empty())
    posix_spawn_file_actions_addchdir_np(&Actions, Cwd.c_str());
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  pid_t Child;
  int Err =
      posix_spawn(&Child, Args[0], &Actions, nullptr, Args.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  close(In[0]);
  close(Out[1]);
  ToServer = In[1];
  FromServer = Out[0];
  if (Err != 0)
    return;
  Pid = Child;
  signal(SIGPIPE, SIG_IGN);
  Reader = std::thread([this] { readLoop(); });
}

LspClient::~LspClient() {
  if (Pid > 0 && ExitStatus == -2)
    finish(std::chrono::seconds(5));
  if (ToServer >= 0)
    close(ToServer);
  if (Reader.joinable())
    Reader.join();
  if (FromServer >= 0)
    close(FromServer);
}

void LspClient::sendRaw(const std::string &Bytes) {
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = write(ToServer, Bytes.data() + Done, Bytes.size() - Done);
    if (N <= 0)
      return;
    Done += static_cast<size_t>(N);
  }
}

namespace {
std::string frame(const nlohmann::json &Msg) {
  std::string Body = Msg.dump();
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
}
} // namespace

int LspClient::request(const std::string &Method, nlohmann::json Params) {
  int Id = NextId++;
  sendRaw(frame({{"jsonrpc", "2.0"},
                 {"id", Id},
                 {"method", Method},
                 {"params", Params}}));
  return Id;
}

void LspClient::notify(const std::string &Method, nlohmann::json Params) {
  sendRaw(frame({{"jsonrpc", "2.0"}, {"method", Method}, {"params", Params}}));
}

void LspClient::readLoop() {
  std::string Buffer;
  char Chunk[65536];
  while (true) {
    ssize_t N = read(FromServer, Chunk, sizeof Chunk);
    if (N <= 0)
      break;
    Buffer.append(Chunk, static_cast<size_t>(N));
    while (true) {
      size_t End = Buffer.find("\r\n\r\n");
      if (End == std::string::npos)
        break;
      size_t At = Buffer.find("Content-Length: ");
      if (At == std::string::npos || At > End)
        break;
      size_t Length = std::stoul(Buffer.substr(At + 16, End - At - 16));
      if (Buffer.size() < End + 4 + Length)
        break;
      std::string Body = Buffer.substr(End + 4, Length);
      Buffer.erase(0, End + 4 + Length);
      std::lock_guard<std::mutex> Guard(Lock);
      Log.push_back(Body);
      Inbox.push_back(nlohmann::json::parse(Body, nullptr, false));
      Arrived.notify_all();
    }
  }
  std::lock_guard<std::mutex> Guard(Lock);
  Closed = true;
  Arrived.notify_all();
}

std::optional<nlohmann::json>
LspClient::waitFor(const std::function<bool(const nlohmann::json &)> &Pred,
                   std::chrono::seconds Timeout) {
  auto Deadline = std::chrono::steady_clock::now() + Timeout;
  std::unique_lock<std::mutex> Guard(Lock);
  while (true) {
    for (auto It = Inbox.begin(); It != Inbox.end(); ++It)
      if (Pred(*It)) {
        nlohmann::json M = *It;
        Inbox.erase(It);
        return M;
      }
    if (Closed)
      return std::nullopt;
    if (Arrived.wait_until(Guard, Deadline) == std::cv_status::timeout)
      return std::nullopt;
  }
}

std::optional<nlohmann::json>
LspClient::response(int Id, std::chrono::seconds Timeout) {
  return waitFor(
      [Id](const nlohmann::json &M) {
        return M.contains("id") && M["id"] == Id && !M.contains("method");
      },
      Timeout);
}

std::optional<nlohmann::json>
LspClient::diagnostics(const std::string &Uri, std::chrono::seconds Timeout) {
  return waitFor(
      [&](const nlohmann::json &M) {
        return M.value("method", "") == "textDocument/publishDiagnostics" &&
               M["params"]["uri"] == Uri;
      },
      Timeout);
}

std::string LspClient::transcript() {
  std::lock_guard<std::mutex> Guard(Lock);
  std::string S;
  for (const std::string &L : Log)
    S += L.substr(0, 600) + "\n";
  return S;
}

int LspClient::finish(std::chrono::seconds Timeout) {
  if (Pid <= 0)
    return -1;
  if (ExitStatus != -2)
    return ExitStatus;
  if (ToServer >= 0) {
    close(ToServer);
    ToServer = -1;
  }
  auto Deadline = std::chrono::steady_clock::now() + Timeout;
  int Status = 0;
  while (true) {
    pid_t R = waitpid(Pid, &Status, WNOHANG);
    if (R == Pid) {
      ExitStatus =
          WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
      return ExitStatus;
    }
    if (std::chrono::steady_clock::now() > Deadline) {
      kill(Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      ExitStatus = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace test
} // namespace tilefit
