//===- Session.cpp - What lasts across analysis runs ----------------------===//
#include "tilefit/driver/Session.h"

#include "tilefit/frontend/HeaderPch.h"
#include "tilefit/frontend/ResultCache.h"

#include "llvm/Support/raw_ostream.h"

namespace tilefit {
namespace driver {

Session::Session() = default;
Session::Session(Options O) : Opts(std::move(O)) {}
Session::~Session() = default;

void Session::message(const char *Level, const std::string &Text) const {
  if (Opts.Message) {
    Opts.Message(Level, Text);
    return;
  }
  llvm::errs() << "tilefit: " << Level << ": " << Text << "\n";
}

frontend::ResultCache *Session::cache() {
  if (!Cache && !Opts.CacheDir.empty())
    Cache = std::make_unique<frontend::ResultCache>(Opts.CacheDir,
                                                    Opts.CacheMaxBytes);
  return Cache.get();
}

frontend::HeaderPchStore *Session::pch() {
  if (!Pch && !Opts.CacheDir.empty())
    Pch = std::make_unique<frontend::HeaderPchStore>(Opts.CacheDir + "/pch");
  return Pch.get();
}

} // namespace driver
} // namespace tilefit
