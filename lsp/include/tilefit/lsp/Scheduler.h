//===- Scheduler.h - When the open files are analysed -----------*- C++ -*-===//
//
// The language server's scheduling, apart from its protocol (as clangd's
// TUScheduler is): the open files (text, version), their latest analyses, and
// one worker thread that decides which file is analysed when. An edit is
// analysed after a debounce (a further edit restarts the wait); opening a file,
// saving one and new settings are analysed at once, the saved file first.
// Every change of a file's inputs makes the running analysis of it stale: it is
// cancelled (its remaining parses are skipped) and its result dropped. Only the
// analysis of the text the editor has now is current: it goes to the server (to
// publish) and to the requests waiting for it.
//
// The scheduler knows nothing of the protocol's messages nor of how a file is
// analysed: the server hands it a function that runs one analysis and one that
// receives each current result.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_LSP_SCHEDULER_H
#define TILEFIT_LSP_SCHEDULER_H

#include "tilefit/lsp/Protocol.h"
#include "tilefit/model/Report.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tilefit {
namespace lsp {

/// An open file with the analysis of its current text. Handed out with the
/// scheduler's lock held: valid only during the call.
struct FileAnalysis {
  const std::string &Path;
  const std::string &Uri;
  /// The client's version of the text (null when it gave none).
  const nlohmann::json &Version;
  const Document &Doc;
  const Report &R;
};

/// One analysis the worker asks for.
struct AnalysisJob {
  std::string Path;
  /// The text of every open file (the editor's unsaved buffers), by path.
  std::map<std::string, std::string> Unsaved;
  /// Set once the result can no longer be current: stop early.
  const std::atomic<bool> *Cancelled = nullptr;
};

class Scheduler {
public:
  using Clock = std::chrono::steady_clock;
  /// Runs one analysis, on the worker thread without the lock; null when it
  /// was cancelled.
  using AnalyseFn = std::function<std::shared_ptr<const Report>(AnalysisJob)>;
  /// Receives each current analysis, on the worker thread with the lock held:
  /// it must not call the scheduler.
  using ResultFn = std::function<void(const FileAnalysis &)>;
  /// A request's answer: the current analysis of its file, or null when the
  /// file is not open (or is closed while the request waits). Runs with the
  /// lock held: it must not call the scheduler.
  using Action = std::function<void(const FileAnalysis *)>;

  /// \p Debounce: how long an edit waits before it is analysed.
  Scheduler(std::chrono::milliseconds Debounce, AnalyseFn Analyse,
            ResultFn OnResult);
  /// Stops the worker (see stop()).
  ~Scheduler();
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  /// Starts the worker: nothing is analysed before.
  void start();
  /// Cancels the running analysis, drops its result and joins the worker;
  /// nothing is analysed after.
  void stop();

  //===--- The files' inputs ----------------------------------------------===//

  /// Opens \p Path with \p Text (or replaces the text of an open file) and
  /// analyses it at once.
  void open(const std::string &Path, std::string Uri, nlohmann::json Version,
            std::string Text);
  /// Edits \p Path's text with \p Edit and sets its version; it is analysed
  /// after the debounce. False, and nothing done, when it is not open.
  bool change(const std::string &Path, nlohmann::json Version,
              llvm::function_ref<void(Document &)> Edit);
  /// \p Path was saved: it may be a header, the database or the configuration
  /// of the others, so every open file is analysed again, \p Path first.
  void saved(const std::string &Path);
  /// Every open file is analysed again at once (the settings changed).
  void reanalyseAll();
  /// Forgets \p Path: its queued and running analyses are dropped and the
  /// requests waiting for it answered with null. Its URI, or nothing when it
  /// was not open.
  std::optional<std::string> close(const std::string &Path);

  //===--- Requests about a file ------------------------------------------===//

  /// Runs \p Answer with the current analysis of \p Path: at once when there is
  /// one (or the file is not open), else when it is done. \p Id names the
  /// request for cancel().
  void whenCurrent(const std::string &Path, nlohmann::json Id, Action Answer);
  /// Drops the first waiting request whose id equals \p Id, unanswered; its id
  /// as whenCurrent was given it, or nothing if none waits.
  std::optional<nlohmann::json> cancel(const nlohmann::json &Id);
  /// The server is shutting down: the queued analyses are dropped, the running
  /// one is cancelled, and the waiting requests are dropped unanswered; their
  /// ids, in the order they came.
  std::vector<nlohmann::json> shutdown();

  /// Waits until no analysis is queued or running (for tests); false if that
  /// was not so by \p Deadline.
  bool blockUntilIdle(Clock::time_point Deadline);

private:
  struct File {
    std::string Uri;
    Document Doc;
    nlohmann::json Version;
    uint64_t Generation = 0; ///< Bumped on every change of the inputs.
    std::shared_ptr<const Report> Result; ///< The latest analysis kept, of
    uint64_t ResultGeneration = 0;        ///< these inputs.
  };
  struct Waiter {
    std::string Path;
    nlohmann::json Id;
    Action Answer;
  };

  /// \p F's inputs changed: a new generation, analysed after \p Delay (the
  /// running analysis of it is cancelled). Lock held.
  void touch(const std::string &Path, File &F, Clock::duration Delay);
  /// Answers the requests waiting for \p Path with \p A. Lock held.
  void answerWaiting(const std::string &Path, const FileAnalysis *A);
  bool idle() const { return Dirty.empty() && !RunningCancel; }

  // The worker.
  void work();
  void analyse(const std::string &Path, std::unique_lock<std::mutex> &Guard);

  const Clock::duration Debounce;
  AnalyseFn Analyse;
  ResultFn OnResult;

  std::mutex Lock;
  std::condition_variable Wake; ///< The worker's: something to do.
  std::condition_variable Idle; ///< blockUntilIdle's.
  bool Stopping = false;
  std::map<std::string, File> Files;
  /// The files to analyse, each when its time comes.
  std::map<std::string, Clock::time_point> Dirty;
  std::string RunningPath;
  std::shared_ptr<std::atomic<bool>> RunningCancel; ///< Set while one runs.
  std::deque<Waiter> Waiting;
  std::thread Worker;
};

} // namespace lsp
} // namespace tilefit

#endif
