//===- SchedulerTest.cpp - When the language server analyses -------------===//
//
// The scheduler (lsp/Scheduler.h) with a fake analysis that records what it
// was asked and can be held mid-run: edits within the debounce are analysed
// once, an edit cancels the running analysis and drops its result, requests
// wait for the current analysis, cancelled and shut-down requests go
// unanswered, and a saved file is analysed before the others.
//
//===----------------------------------------------------------------------===//
#include "tilefit/lsp/Scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace tilefit {
namespace lsp {
namespace {

using namespace std::chrono_literals;

/// An analysis that reports the text it was given (as the report's
/// SourceRoot), records every job, and can be held until released.
class FakeAnalysis {
public:
  std::shared_ptr<const Report> operator()(AnalysisJob Job) {
    std::unique_lock<std::mutex> Guard(Lock);
    Jobs.push_back({Job.Path, Job.Unsaved[Job.Path]});
    Started.notify_all();
    Changed.wait(Guard, [&] { return !Holding; });
    if (Job.Cancelled && *Job.Cancelled) {
      ++CancelledRuns;
      return nullptr;
    }
    auto R = std::make_shared<Report>();
    R->SourceRoot = Jobs.back().second;
    return R;
  }

  void hold() {
    std::lock_guard<std::mutex> Guard(Lock);
    Holding = true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> Guard(Lock);
      Holding = false;
    }
    Changed.notify_all();
  }
  /// Waits until \p N jobs have started.
  bool waitForJobs(size_t N) {
    std::unique_lock<std::mutex> Guard(Lock);
    return Started.wait_for(Guard, 60s, [&] { return Jobs.size() >= N; });
  }
  std::vector<std::pair<std::string, std::string>> jobs() {
    std::lock_guard<std::mutex> Guard(Lock);
    return Jobs;
  }
  unsigned cancelledRuns() {
    std::lock_guard<std::mutex> Guard(Lock);
    return CancelledRuns;
  }

private:
  std::mutex Lock;
  std::condition_variable Started, Changed;
  bool Holding = false;
  std::vector<std::pair<std::string, std::string>> Jobs; ///< Path, its text.
  unsigned CancelledRuns = 0;
};

/// A scheduler over a FakeAnalysis that records each current result as
/// "path=text@version".
struct Fixture {
  explicit Fixture(std::chrono::milliseconds Debounce)
      : S(
            Debounce, [this](AnalysisJob J) { return Fake(std::move(J)); },
            [this](const FileAnalysis &A) {
              Results.push_back(A.Path + "=" + A.R.SourceRoot + "@" +
                                A.Version.dump());
            }) {
    S.start();
  }
  bool idle() { return S.blockUntilIdle(Scheduler::Clock::now() + 60s); }
  void edit(const std::string &Path, int Version, const std::string &Text) {
    ASSERT_TRUE(S.change(Path, Version, [&](Document &D) { D.setText(Text); }));
  }

  FakeAnalysis Fake;
  std::vector<std::string> Results; ///< Written with the scheduler's lock.
  Scheduler S;
};

TEST(LspScheduler, EditsWithinTheDebounceAreAnalysedOnce) {
  Fixture F(1000ms);
  F.S.open("/a.cu", "file:///a.cu", 1, "v1");
  ASSERT_TRUE(F.idle());
  F.edit("/a.cu", 2, "v2");
  F.edit("/a.cu", 3, "v3");
  F.edit("/a.cu", 4, "v4");
  ASSERT_TRUE(F.idle());
  auto Jobs = F.Fake.jobs();
  ASSERT_EQ(Jobs.size(), 2u) << "an open at once, the three edits once";
  EXPECT_EQ(Jobs[0].second, "v1");
  EXPECT_EQ(Jobs[1].second, "v4");
  EXPECT_EQ(F.Results, (std::vector<std::string>{"/a.cu=v1@1", "/a.cu=v4@4"}));
  EXPECT_FALSE(F.S.change("/b.cu", 1, [](Document &) {}))
      << "a file that is not open";
}

TEST(LspScheduler, AnEditCancelsTheRunningAnalysisAndDropsItsResult) {
  Fixture F(0ms);
  F.Fake.hold();
  F.S.open("/a.cu", "file:///a.cu", 1, "old");
  ASSERT_TRUE(F.Fake.waitForJobs(1));
  F.edit("/a.cu", 2, "new"); // while "old" is being analysed
  F.Fake.release();
  ASSERT_TRUE(F.idle());
  EXPECT_EQ(F.Fake.cancelledRuns(), 1u);
  auto Jobs = F.Fake.jobs();
  ASSERT_EQ(Jobs.size(), 2u);
  EXPECT_EQ(Jobs[1].second, "new");
  EXPECT_EQ(F.Results, (std::vector<std::string>{"/a.cu=new@2"}))
      << "the stale analysis is never published";
}

TEST(LspScheduler, RequestsWaitForTheCurrentAnalysis) {
  Fixture F(0ms);
  std::vector<std::string> Answers; // written with the scheduler's lock
  auto Record = [&](const FileAnalysis *A) {
    Answers.push_back(A ? A->R.SourceRoot : "null");
  };
  F.S.whenCurrent("/none.cu", 1, Record); // not open: answered at once
  ASSERT_EQ(Answers, (std::vector<std::string>{"null"}));

  F.Fake.hold();
  F.S.open("/a.cu", "file:///a.cu", 1, "text");
  ASSERT_TRUE(F.Fake.waitForJobs(1));
  F.S.whenCurrent("/a.cu", 2, Record);
  EXPECT_EQ(Answers.size(), 1u) << "waits while the analysis runs";
  F.Fake.release();
  ASSERT_TRUE(F.idle());
  EXPECT_EQ(Answers, (std::vector<std::string>{"null", "text"}));
  F.S.whenCurrent("/a.cu", 3, Record); // current: answered at once
  EXPECT_EQ(Answers.back(), "text");

  // Closing a file answers what waits for it with null.
  F.Fake.hold();
  F.edit("/a.cu", 2, "edited");
  ASSERT_TRUE(F.Fake.waitForJobs(2));
  F.S.whenCurrent("/a.cu", 4, Record);
  EXPECT_EQ(F.S.close("/a.cu"), std::optional<std::string>("file:///a.cu"));
  EXPECT_EQ(Answers.back(), "null");
  EXPECT_EQ(Answers.size(), 4u);
  F.Fake.release();
  ASSERT_TRUE(F.idle());
  EXPECT_EQ(F.S.close("/a.cu"), std::nullopt);
}

TEST(LspScheduler, CancelledAndShutDownRequestsGoUnanswered) {
  Fixture F(0ms);
  unsigned Answered = 0;
  auto Count = [&](const FileAnalysis *) { ++Answered; };
  F.Fake.hold();
  F.S.open("/a.cu", "file:///a.cu", 1, "text");
  ASSERT_TRUE(F.Fake.waitForJobs(1));
  F.S.whenCurrent("/a.cu", 7, Count);
  F.S.whenCurrent("/a.cu", "eight", Count);
  F.S.whenCurrent("/a.cu", 9, Count);
  EXPECT_EQ(F.S.cancel(7), std::optional<nlohmann::json>(7));
  EXPECT_EQ(F.S.cancel(7), std::nullopt) << "dropped once";
  EXPECT_EQ(F.S.shutdown(), (std::vector<nlohmann::json>{"eight", 9}));
  F.Fake.release();
  ASSERT_TRUE(F.idle());
  EXPECT_EQ(Answered, 0u);
  EXPECT_EQ(F.Fake.cancelledRuns(), 1u) << "shutdown cancels the running one";
  EXPECT_TRUE(F.Results.empty());
}

TEST(LspScheduler, ASavedFileIsAnalysedBeforeTheOthers) {
  Fixture F(0ms);
  F.S.open("/a.cu", "file:///a.cu", 1, "a");
  F.S.open("/b.cu", "file:///b.cu", 1, "b");
  F.S.open("/c.cu", "file:///c.cu", 1, "c");
  ASSERT_TRUE(F.idle());
  ASSERT_EQ(F.Fake.jobs().size(), 3u);
  F.S.saved("/c.cu");
  ASSERT_TRUE(F.idle());
  auto Jobs = F.Fake.jobs();
  ASSERT_EQ(Jobs.size(), 6u) << "every open file again";
  EXPECT_EQ(Jobs[3].first, "/c.cu");
  std::vector<std::string> Rest{Jobs[4].first, Jobs[5].first};
  std::sort(Rest.begin(), Rest.end());
  EXPECT_EQ(Rest, (std::vector<std::string>{"/a.cu", "/b.cu"}));
  // New settings: every open file again.
  F.S.reanalyseAll();
  ASSERT_TRUE(F.idle());
  EXPECT_EQ(F.Fake.jobs().size(), 9u);
}

} // namespace
} // namespace lsp
} // namespace tilefit
