//===- LspClient.h - A language-server client for tests ---------*- C++ -*-===//
//
// Runs `tilefit lsp` as a child process over pipes and speaks the protocol to
// it: requests, notifications, and waiting (with a deadline) for a message that
// satisfies a predicate.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_TESTS_LSPCLIENT_H
#define TILEFIT_TESTS_LSPCLIENT_H

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tilefit {
namespace test {

class LspClient {
public:
  /// Starts \p Argv (the binary first) in \p Cwd.
  LspClient(const std::vector<std::string> &Argv, const std::string &Cwd);
  ~LspClient();

  bool started() const { return Pid > 0; }
  /// The server's process id (-1 if it did not start).
  int pid() const { return Pid; }

  /// Sends a request; returns its id.
  int request(const std::string &Method, nlohmann::json Params);
  void notify(const std::string &Method, nlohmann::json Params);
  /// Sends bytes as they are (for malformed input).
  void sendRaw(const std::string &Bytes);

  /// The first message not yet taken that satisfies \p Pred, waiting up to \p
  /// Timeout; messages passed over stay for later calls. Nothing on timeout or
  /// when the server has gone.
  std::optional<nlohmann::json>
  waitFor(const std::function<bool(const nlohmann::json &)> &Pred,
          std::chrono::seconds Timeout = std::chrono::seconds(120));
  /// The response to request \p Id.
  std::optional<nlohmann::json>
  response(int Id, std::chrono::seconds Timeout = std::chrono::seconds(120));
  /// The next publishDiagnostics for \p Uri.
  std::optional<nlohmann::json>
  diagnostics(const std::string &Uri,
              std::chrono::seconds Timeout = std::chrono::seconds(120));
  /// Everything received so far (taken or not), for failure messages.
  std::string transcript();

  /// Closes the server's input and waits for it to exit; its exit status (-1 if
  /// it did not exit within \p Timeout, after which it is killed).
  int finish(std::chrono::seconds Timeout = std::chrono::seconds(30));

private:
  void readLoop();

  int Pid = -1;
  int ToServer = -1, FromServer = -1;
  int NextId = 1;
  std::thread Reader;
  std::mutex Lock;
  std::condition_variable Arrived;
  std::deque<nlohmann::json> Inbox;
  std::vector<std::string> Log;
  bool Closed = false;
  int ExitStatus = -2;
};

} // namespace test
} // namespace tilefit

#endif
