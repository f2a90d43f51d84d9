//===- Session.h - What lasts across analysis runs --------------*- C++ -*-===//
//
// The command line makes one run in its session; the language server makes
// every analysis of its lifetime in one. A session owns what runs share and
// what belongs to whoever runs them: the result cache and the precompiled
// headers' store, the language server's preambles, where tilefit's own messages
// go, and the editor's state for the next run (unsaved buffers, the flag that
// cancels it). An AnalyzeRequest (Analyze.h) says only what to analyse and how.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_DRIVER_SESSION_H
#define TILEFIT_DRIVER_SESSION_H

#include "tilefit/frontend/FactsMemo.h"
#include "tilefit/frontend/PreambleStore.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace tilefit {
namespace frontend {
class HeaderPchStore;
class ResultCache;
} // namespace frontend

namespace driver {

class Session {
public:
  /// tilefit's own messages (level: "error", "warning", "note"; text without
  /// the prefix).
  using MessageFn =
      std::function<void(const char *Level, const std::string &Text)>;

  struct Options {
    /// The result cache's folder ("" for none) and its size bound; CacheStats
    /// says on the message channel how many parses it saved. The precompiled
    /// headers live under it too.
    std::string CacheDir;
    uint64_t CacheMaxBytes = 1ull << 30;
    bool CacheStats = false;
    bool Quiet = false;    ///< Only errors and warnings on the message channel.
    bool Progress = false; ///< Show progress on stderr.
    bool ShowCommands = false; ///< Print each parse's Clang command on stderr.
    /// Keep each file's preamble between runs (the language server's).
    bool KeepPreambles = false;
    /// A configuration file found above a source for which this says false
    /// (outside the editor's workspace) is not read. Null: any.
    std::function<bool(const std::string &)> MayReadConfig;
    /// Where the messages go; null: stderr, in clang's voice (`tilefit:
    /// warning: ...`).
    MessageFn Message;
  };

  Session();
  explicit Session(Options Opts);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const Options &options() const { return Opts; }
  void message(const char *Level, const std::string &Text) const;

  /// The result cache, made on first use; null without a cache folder.
  frontend::ResultCache *cache();
  /// The precompiled headers' store, made on first use; null without a cache
  /// folder.
  frontend::HeaderPchStore *pch();
  /// The preambles kept between runs; null unless KeepPreambles.
  frontend::PreambleStore *preambles() {
    return Opts.KeepPreambles ? &Preambles : nullptr;
  }
  /// The facts kept for edits that change no code; null unless KeepPreambles.
  frontend::FactsMemo *memo() { return Opts.KeepPreambles ? &Memo : nullptr; }

  /// For the next run: unsaved editor buffers by absolute path, read instead of
  /// the files on disk (the result cache stays out of a run that has any), and
  /// a flag another thread sets to stop it early (its result is then to be
  /// dropped; null: not cancellable).
  std::map<std::string, std::string> Unsaved;
  const std::atomic<bool> *Cancelled = nullptr;

private:
  Options Opts;
  std::unique_ptr<frontend::ResultCache> Cache;
  std::unique_ptr<frontend::HeaderPchStore> Pch;
  frontend::PreambleStore Preambles;
  frontend::FactsMemo Memo;
};

} // namespace driver
} // namespace tilefit

#endif
