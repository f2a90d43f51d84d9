//===- FactsPipeline.cpp - Many units, scheduled and cached ---------------===//
//
// parseAll: the units' parses on a thread pool, the result cache in front of
// them, one host-side parse shared by a command's architectures, and the
// hand-over of each unit's facts as soon as they are final (as clangd's
// TUScheduler keeps scheduling apart from the parse). The parse of one unit is
// ParseUnit.cpp's.
//
//===----------------------------------------------------------------------===//
#include "ParseCommand.h"

#include "tilefit/frontend/Parse.h"
#include "tilefit/frontend/FactsMemo.h"
#include "tilefit/frontend/IncludePrefix.h"
#include "tilefit/frontend/ResultCache.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace tilefit {
namespace frontend {
namespace {

/// parseUnit, with a crash of Clang (or of tilefit's walk) contained to the
/// unit.
TranslationUnitFacts parseUnitSafely(const UnitJob &Job,
                                              const ParseEnvironment &Env) {
  TranslationUnitFacts Facts;
  llvm::CrashRecoveryContext CRC;
  if (CRC.RunSafely([&] { Facts = parseUnit(Job, Env); }))
    return Facts;
  return crashedFacts(Job);
}

/// One parseAll: the jobs' groups (one command's jobs, one per architecture,
/// share a host-side parse), which are final, and the hand-over of their facts.
class FactsPipeline {
public:
  FactsPipeline(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
                const ProgressFn &Progress, const FactsConsumer &Consume,
                bool KeepInputs)
      : Jobs(Jobs), Env(Env), Progress(Progress), Consume(Consume),
        KeepInputs(KeepInputs), Results(Jobs.size()), Keys(Jobs.size()),
        MemoKeys(Jobs.size()), MainTexts(Jobs.size()),
        Cached(Jobs.size(), 0), Group(Jobs.size()) {
    std::map<std::pair<std::string, std::vector<std::string>>, size_t> GroupOf;
    for (size_t I = 0; I < Jobs.size(); ++I) {
      auto [It, New] = GroupOf.try_emplace(
          {Jobs[I].Command.File, Jobs[I].Command.Arguments}, Members.size());
      if (New)
        Members.emplace_back();
      Group[I] = It->second;
      Members[It->second].push_back(I);
    }
    Groups.resize(Members.size());
    Cache = Env.Unsaved.empty() ? Env.Cache : nullptr;
    findSharedIncludes();
  }

  /// Earlier parses of the same command over the same files, or over the
  /// same lines of code (the memo): their facts are final.
  void lookUpCache() {
    for (size_t I = 0; (Cache || Env.Memo) && I < Jobs.size(); ++I) {
      std::optional<std::string> Main = readSource(Env, Jobs[I].Command.File);
      if (!Main || !Jobs[I].Flags.IsCuda)
        continue;
      // Whether the host-side parse runs follows from the files alone: its
      // command line is part of every key.
      std::vector<std::vector<std::string>> Lines = {
          parseCommandLine(Jobs[I], Env),
          parseCommandLine(Jobs[I], Env, /*HostSide=*/true),
          // Slicing changes what the facts hold (FunctionFacts).
          {Env.SliceBodies ? "slice-bodies" : "whole-bodies"}};
      if (Env.Memo) {
        for (const std::vector<std::string> &Line : Lines)
          for (const std::string &A : Line)
            MemoKeys[I] += A + '\n';
        MemoKeys[I] += Env.NvccCompatibility ? "compatible" : "plain";
        if (std::optional<TranslationUnitFacts> Hit = Env.Memo->lookup(
                MemoKeys[I], Jobs[I].Command.File, *Main, Env.Unsaved)) {
          Cached[I] = 1;
          progress(I);
          hand(I, std::move(*Hit));
          continue;
        }
      }
      if (Cache) {
        Keys[I] = ResultCache::key(Lines, *Main);
        if (std::optional<TranslationUnitFacts> Hit = Cache->lookup(Keys[I])) {
          Cached[I] = 1;
          progress(I);
          hand(I, std::move(*Hit));
          continue;
        }
      }
      if (Env.Memo)
        MainTexts[I] = std::move(*Main);
    }
    for (size_t G = 0; G < Members.size(); ++G)
      for (size_t I : Members[G])
        Groups[G].Pending += !Cached[I];
  }

  /// The leading #include lines each job shares with another of the same
  /// options (IncludePrefix.h), to be precompiled once (HeaderPch.h); only with
  /// a store for them and over the files on disk. Group is set (the
  /// constructor's first step).
  void findSharedIncludes() {
    Shared.resize(Jobs.size());
    if (!Env.Pch || Env.Preambles || !Env.Unsaved.empty())
      return;
    std::vector<std::vector<std::string>> Includes(Jobs.size());
    std::vector<std::string> Options(Jobs.size());
    std::vector<size_t> Named(Jobs.size());
    for (size_t I = 0; I < Jobs.size(); ++I) {
      std::optional<std::string> Main = readSource(Env, Jobs[I].Command.File);
      if (!Main || !Jobs[I].Flags.IsCuda)
        continue;
      std::vector<std::string> Lines = leadingIncludes(*Main);
      Named[I] = namedIncludePrefix(Lines, Jobs[I].PrecompileIncludes);
      Includes[I] = resolvedIncludes(
          Lines, llvm::sys::path::parent_path(Jobs[I].Command.File));
      for (const std::string &A : parseCommandLine(Jobs[I], Env))
        if (A != Jobs[I].Command.File)
          Options[I] += A + "\n";
    }
    // A run of one command (one file, checked again and again, as in an edit
    // loop or a CI job) has its own lines precompiled: the next run loads them.
    const bool OneCommand = std::all_of(Group.begin(), Group.end(),
                                        [](size_t G) { return G == 0; });
    Shared = sharedIncludePrefixes(
        Includes, Options, Env.PrecompileSoleIncludes || OneCommand, Named);
  }

  bool cached(size_t I) const { return Cached[I]; }
  size_t groups() const { return Members.size(); }

  /// The device-side parse of job \p I; its group is final when it was the last
  /// one and no host-side parse is needed.
  void parse(size_t I) {
    if (Env.Cancelled && *Env.Cancelled) {
      Results[I].File = Jobs[I].Command.File;
      Results[I].Arch = Jobs[I].Target.Real;
      Results[I].Failed = true;
    } else {
      if (Shared[I].empty()) {
        Results[I] = parseUnitSafely(Jobs[I], Env);
      } else {
        UnitJob J = Jobs[I];
        J.SharedIncludes = Shared[I];
        Results[I] = parseUnitSafely(J, Env);
      }
      progress(I);
    }
    const size_t G = Group[I];
    bool Final;
    {
      std::lock_guard<std::mutex> Guard(Lock);
      // The device-side parses skipped code with launches (`#ifndef
      // __CUDA_ARCH__`): a host-side parse, after every device-side one; the
      // others saw every launch.
      if (!Results[I].Failed && Jobs[I].Flags.IsCuda &&
          Results[I].SkippedHostCalls)
        Groups[G].NeedsHost = true;
      Final = --Groups[G].Pending == 0 && !Groups[G].NeedsHost;
    }
    if (Final)
      finish(G, {}, {}, {}, false);
  }

  bool needsHost(size_t G) const { return Groups[G].NeedsHost; }

  /// The host-side parse of group \p G, then its jobs are final.
  void parseHost(size_t G) {
    std::vector<HostKernelCalls> Host;
    std::vector<Diagnostic> Problems;
    std::vector<std::string> Inputs;
    bool LineDependent = false;
    if (!(Env.Cancelled && *Env.Cancelled))
      Host = parseHostSide(Jobs[Members[G].front()], Env, Problems, &Inputs,
                           &LineDependent);
    finish(G, Host, Problems, Inputs, LineDependent);
  }

  std::vector<TranslationUnitFacts> &results() { return Results; }

private:
  struct GroupState {
    size_t Pending = 0; ///< Device-side parses not done.
    bool NeedsHost = false;
  };

  void progress(size_t I) {
    if (Progress) {
      std::lock_guard<std::mutex> Guard(ProgressLock);
      Progress(++Done, Jobs.size(), Jobs[I]);
    }
  }

  /// Job \p I's facts are final: to the consumer, and gone from here.
  void hand(size_t I, TranslationUnitFacts &&Facts) {
    if (!KeepInputs)
      std::vector<std::string>().swap(Facts.Inputs);
    std::lock_guard<std::mutex> Guard(ConsumeLock);
    Consume(I, std::move(Facts));
  }

  void finish(size_t G, const std::vector<HostKernelCalls> &Host,
              const std::vector<Diagnostic> &HostProblems,
              const std::vector<std::string> &HostInputs,
              bool HostLineDependent) {
    for (size_t I : Members[G]) {
      if (Cached[I])
        continue;
      TranslationUnitFacts &F = Results[I];
      if (!F.Failed) {
        mergeHostCalls(F, Host);
        F.LineDependent |= HostLineDependent;
        for (Diagnostic D : HostProblems) {
          D.Arch = F.Arch;
          F.Diagnostics.push_back(std::move(D));
        }
        // Stored only when complete: a failed host-side parse is not
        // remembered.
        const bool Complete =
            HostProblems.empty() && !(Env.Cancelled && *Env.Cancelled);
        const bool Store = Cache && !Keys[I].empty(),
                   Memo = Env.Memo && !MemoKeys[I].empty();
        if (Complete && (Store || Memo)) {
          std::vector<std::string> Inputs = F.Inputs;
          Inputs.insert(Inputs.end(), HostInputs.begin(), HostInputs.end());
          std::sort(Inputs.begin(), Inputs.end());
          Inputs.erase(std::unique(Inputs.begin(), Inputs.end()), Inputs.end());
          if (Store)
            Cache->store(Keys[I], F, Inputs);
          if (Memo)
            Env.Memo->store(MemoKeys[I], Jobs[I].Command.File, MainTexts[I], F,
                            Inputs, Env.Unsaved);
        }
      }
      hand(I, std::move(F));
      F = TranslationUnitFacts();
    }
  }

  const std::vector<UnitJob> &Jobs;
  const ParseEnvironment &Env;
  const ProgressFn &Progress;
  const FactsConsumer &Consume;
  const bool KeepInputs;
  ResultCache *Cache = nullptr;
  std::vector<TranslationUnitFacts> Results;
  std::vector<std::string> Keys;
  std::vector<std::string> MemoKeys, MainTexts; ///< Per job, with a memo.
  std::vector<char> Cached;
  std::vector<size_t> Group;
  std::vector<std::vector<size_t>> Members;
  std::vector<GroupState> Groups;
  std::vector<std::vector<std::string>> Shared; ///< Per job.
  std::mutex Lock, ProgressLock, ConsumeLock;
  size_t Done = 0;
};

void runPipeline(FactsPipeline &P, size_t JobCount, unsigned Threads) {
  P.lookUpCache();
  // The device-side parses first; then a host-side parse for each command whose
  // device-side parses skipped code with launches, and only for those not
  // cached.
  if (Threads <= 1 || JobCount <= 1) {
    for (size_t I = 0; I < JobCount; ++I)
      if (!P.cached(I))
        P.parse(I);
    for (size_t G = 0; G < P.groups(); ++G)
      if (P.needsHost(G))
        P.parseHost(G);
    return;
  }
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Threads));
  for (size_t I = 0; I < JobCount; ++I)
    if (!P.cached(I))
      Pool.async([&P, I] { P.parse(I); });
  Pool.wait();
  for (size_t G = 0; G < P.groups(); ++G)
    if (P.needsHost(G))
      Pool.async([&P, G] { P.parseHost(G); });
  Pool.wait();
}

} // namespace

void parseAll(const std::vector<UnitJob> &Jobs, const ParseEnvironment &Env,
                unsigned Threads, const ProgressFn &Progress,
                const FactsConsumer &Consume) {
  FactsPipeline P(Jobs, Env, Progress, Consume, /*KeepInputs=*/false);
  runPipeline(P, Jobs.size(), Threads);
}

std::vector<TranslationUnitFacts> parseAll(const std::vector<UnitJob> &Jobs,
                                             const ParseEnvironment &Env,
                                             unsigned Threads,
                                             const ProgressFn &Progress) {
  std::vector<TranslationUnitFacts> Out(Jobs.size());
  FactsConsumer Keep = [&](size_t I, TranslationUnitFacts &&F) {
    Out[I] = std::move(F);
  };
  FactsPipeline P(Jobs, Env, Progress, Keep, /*KeepInputs=*/true);
  runPipeline(P, Jobs.size(), Threads);
  return Out;
}

} // namespace frontend
} // namespace tilefit

