//===- Settings.cpp - What each configuration decides for its units -------===//
#include "Stages.h"

#include "tilefit/model/Arch.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace tilefit {
namespace driver {
namespace {

/// Builds the settings of one effective configuration; the error names what is
/// wrong.
Expected<std::unique_ptr<Settings>> makeSettings(const frontend::Config &Cfg,
                                                 const AnalyzeRequest &Req) {
  auto S = std::make_unique<Settings>();
  S->Cfg = Cfg;
  SmallString<256> BuiltinDb(Req.ShareDir);
  sys::path::append(BuiltinDb, "capacity.json");
  auto Db = CapacityDatabase::load(std::string(BuiltinDb));
  if (!Db)
    return createStringError(std::errc::invalid_argument, "%s",
                             Db.error().c_str());
  S->Db = std::move(*Db);
  std::vector<std::string> Extra;
  if (Cfg.CapacityDatabase)
    Extra.push_back(*Cfg.CapacityDatabase);
  Extra.insert(Extra.end(), Req.CapacityDbs.begin(), Req.CapacityDbs.end());
  for (const std::string &Path : Extra) {
    auto More = CapacityDatabase::load(Path);
    if (!More)
      return createStringError(std::errc::invalid_argument, "%s",
                               More.error().c_str());
    if (auto Err = S->Db.merge(*More))
      return createStringError(std::errc::invalid_argument, "%s", Err->c_str());
  }
  if (Cfg.Architectures)
    for (const std::string &A : *Cfg.Architectures) {
      auto P = parseArch(A);
      if (!P || A.rfind("sm_", 0) != 0)
        return createStringError(
            std::errc::invalid_argument,
            "%s: not an architecture name (expected sm_NN, sm_NNa or sm_NNf)",
            A.c_str());
      if (!S->Db.lookup(P->name()))
        return createStringError(
            std::errc::invalid_argument,
            "%s: unknown architecture; the capacity database (%s) knows %s",
            A.c_str(), S->Db.origin().c_str(),
            join(S->Db.names(), ", ").c_str());
      S->Archs.push_back(P->name());
    }
  S->Opts.Budget = Cfg.Budget.value_or(0.9);
  S->Opts.Checks = Cfg.Checks.value_or("*");
  if (Cfg.KernelBudgets)
    S->Opts.KernelBudgets = *Cfg.KernelBudgets;
  if (Cfg.DynamicSharedMemory)
    S->Opts.DynamicSizes = *Cfg.DynamicSharedMemory;
  if (Cfg.BlockShapes)
    S->Opts.BlockShapes = *Cfg.BlockShapes;
  S->Opts.Registers = Req.Registers;
  if (Cfg.HeaderFilterRegex && !Cfg.HeaderFilterRegex->empty()) {
    S->HeaderFilter = std::make_unique<Regex>(*Cfg.HeaderFilterRegex);
    std::string Why;
    if (!S->HeaderFilter->isValid(Why))
      return createStringError(std::errc::invalid_argument,
                               "header filter '%s': %s",
                               Cfg.HeaderFilterRegex->c_str(), Why.c_str());
  }
  S->WarningsAsErrors = Cfg.WarningsAsErrors.value_or("");
  return S;
}

/// The configuration of the file at \p Path ("": none) under the command
/// line's.
Expected<frontend::Config> configFrom(const AnalyzeRequest &Req,
                                      const std::string &Path) {
  frontend::Config Cfg;
  if (!Path.empty()) {
    auto FromFile = frontend::loadConfigFile(Path);
    if (!FromFile)
      return FromFile.takeError();
    Cfg.overlay(*FromFile);
  }
  if (!Req.ConfigText.empty()) {
    auto Inline =
        frontend::parseConfig(Req.ConfigText, "--config", currentDir());
    if (!Inline)
      return Inline.takeError();
    Cfg.overlay(*Inline);
  }
  Cfg.overlay(Req.Overrides);
  return Cfg;
}

} // namespace

/// The configuration file that applies to \p File: --config-file, else the
/// nearest one.
std::string configFileFor(const AnalyzeRequest &Req, const Session &S,
                          const std::string &File) {
  if (!Req.ConfigFile.empty())
    return Req.ConfigFile;
  std::string Found = frontend::findConfigFile(sys::path::parent_path(File));
  const auto &MayRead = S.options().MayReadConfig;
  if (!Found.empty() && MayRead && !MayRead(Found)) {
    S.message("warning", "ignored " + Found + ": outside the workspace");
    return "";
  }
  return Found;
}

/// The settings of the configuration at \p Path ("": none).
Expected<std::unique_ptr<Settings>> settingsFrom(const AnalyzeRequest &Req,
                                                 const std::string &Path) {
  auto Cfg = configFrom(Req, Path);
  if (!Cfg)
    return Cfg.takeError();
  auto S = makeSettings(*Cfg, Req);
  if (!S)
    return createStringError(std::errc::invalid_argument, "%s%s",
                             Cfg->Origin.empty() ? ""
                                                 : (Cfg->Origin + ": ").c_str(),
                             toString(S.takeError()).c_str());
  return S;
}

Expected<frontend::Config> effectiveConfig(const AnalyzeRequest &Req,
                                           const Session &S,
                                           const std::string &File) {
  return configFrom(Req, configFileFor(Req, S, File));
}

} // namespace driver
} // namespace tilefit
