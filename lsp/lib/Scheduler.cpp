//===- Scheduler.cpp - When the open files are analysed -------------------===//
#include "tilefit/lsp/Scheduler.h"

namespace tilefit {
namespace lsp {

Scheduler::Scheduler(std::chrono::milliseconds Debounce, AnalyseFn Analyse,
                     ResultFn OnResult)
    : Debounce(Debounce), Analyse(std::move(Analyse)),
      OnResult(std::move(OnResult)) {}

Scheduler::~Scheduler() { stop(); }

void Scheduler::start() {
  if (!Worker.joinable())
    Worker = std::thread([this] { work(); });
}

void Scheduler::stop() {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Stopping = true;
    if (RunningCancel)
      *RunningCancel = true;
  }
  Wake.notify_all();
  Idle.notify_all();
  if (Worker.joinable())
    Worker.join();
}

void Scheduler::touch(const std::string &Path, File &F, Clock::duration Delay) {
  ++F.Generation;
  Dirty[Path] = Clock::now() + Delay;
  if (RunningPath == Path && RunningCancel)
    *RunningCancel = true;
  Wake.notify_all();
}

void Scheduler::answerWaiting(const std::string &Path, const FileAnalysis *A) {
  for (auto W = Waiting.begin(); W != Waiting.end();)
    if (W->Path == Path) {
      W->Answer(A);
      W = Waiting.erase(W);
    } else {
      ++W;
    }
}

void Scheduler::open(const std::string &Path, std::string Uri,
                     nlohmann::json Version, std::string Text) {
  std::lock_guard<std::mutex> Guard(Lock);
  File &F = Files[Path];
  F.Uri = std::move(Uri);
  F.Doc.setText(std::move(Text));
  F.Version = std::move(Version);
  touch(Path, F, Clock::duration::zero());
}

bool Scheduler::change(const std::string &Path, nlohmann::json Version,
                       llvm::function_ref<void(Document &)> Edit) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Files.find(Path);
  if (It == Files.end())
    return false;
  File &F = It->second;
  Edit(F.Doc);
  F.Version = std::move(Version);
  touch(Path, F, Debounce);
  return true;
}

void Scheduler::saved(const std::string &Path) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Files.find(Path);
  if (It != Files.end())
    touch(Path, It->second, Clock::duration::zero());
  // The others just after it.
  for (auto &[Other, F] : Files)
    if (Other != Path)
      touch(Other, F, std::chrono::milliseconds(1));
}

void Scheduler::reanalyseAll() {
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto &[Path, F] : Files)
    touch(Path, F, Clock::duration::zero());
}

std::optional<std::string> Scheduler::close(const std::string &Path) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Files.find(Path);
  if (It == Files.end())
    return std::nullopt;
  std::string Uri = std::move(It->second.Uri);
  Files.erase(It);
  Dirty.erase(Path);
  if (RunningPath == Path && RunningCancel)
    *RunningCancel = true;
  answerWaiting(Path, nullptr);
  Idle.notify_all();
  return Uri;
}

void Scheduler::whenCurrent(const std::string &Path, nlohmann::json Id,
                            Action Answer) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Files.find(Path);
  if (It == Files.end()) {
    Answer(nullptr); // Not open: nothing to say.
    return;
  }
  const File &F = It->second;
  if (F.Result && F.ResultGeneration == F.Generation) {
    const FileAnalysis A{It->first, F.Uri, F.Version, F.Doc, *F.Result};
    Answer(&A);
    return;
  }
  Waiting.push_back({Path, std::move(Id), std::move(Answer)});
}

std::optional<nlohmann::json> Scheduler::cancel(const nlohmann::json &Id) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto W = Waiting.begin(); W != Waiting.end(); ++W)
    if (W->Id == Id) {
      nlohmann::json Found = std::move(W->Id);
      Waiting.erase(W);
      return Found;
    }
  return std::nullopt;
}

std::vector<nlohmann::json> Scheduler::shutdown() {
  std::lock_guard<std::mutex> Guard(Lock);
  std::vector<nlohmann::json> Ids;
  for (Waiter &W : Waiting)
    Ids.push_back(std::move(W.Id));
  Waiting.clear();
  Dirty.clear();
  if (RunningCancel)
    *RunningCancel = true;
  Idle.notify_all();
  return Ids;
}

bool Scheduler::blockUntilIdle(Clock::time_point Deadline) {
  std::unique_lock<std::mutex> Guard(Lock);
  Idle.wait_until(Guard, Deadline, [this] { return idle() || Stopping; });
  return idle();
}

void Scheduler::work() {
  std::unique_lock<std::mutex> Guard(Lock);
  while (!Stopping) {
    if (Dirty.empty()) {
      Idle.notify_all();
      Wake.wait(Guard);
      continue;
    }
    // The file whose time comes first (of equal times, the first path).
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
    if (Files.count(Path))
      analyse(Path, Guard);
  }
}

void Scheduler::analyse(const std::string &Path,
                        std::unique_lock<std::mutex> &Guard) {
  const uint64_t Generation = Files[Path].Generation;
  AnalysisJob Job;
  Job.Path = Path;
  for (const auto &[P, F] : Files)
    Job.Unsaved[P] = F.Doc.text();
  auto Cancel = std::make_shared<std::atomic<bool>>(false);
  Job.Cancelled = Cancel.get();
  RunningPath = Path;
  RunningCancel = Cancel;
  Guard.unlock();

  std::shared_ptr<const Report> R = Analyse(std::move(Job));

  Guard.lock();
  RunningPath.clear();
  RunningCancel.reset();
  auto It = Files.find(Path);
  if (!R || Stopping || It == Files.end() ||
      It->second.Generation != Generation)
    return; // Stale: a newer edit is queued (or the file was closed).
  File &F = It->second;
  F.Result = std::move(R);
  F.ResultGeneration = Generation;
  const FileAnalysis A{It->first, F.Uri, F.Version, F.Doc, *F.Result};
  OnResult(A);
  answerWaiting(Path, &A);
}

} // namespace lsp
} // namespace tilefit
