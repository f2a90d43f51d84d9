//===- Diff.cpp -----------------------------------------------------------===//
#include "tilefit/model/Diff.h"

#include "tilefit/model/Analysis.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>

namespace tilefit {
namespace {

std::optional<uint64_t> perBlock(const KernelReport &K) {
  if (!K.StaticBytes)
    return std::nullopt;
  if (K.WorstLaunch)
    return K.Launches[*K.WorstLaunch].TotalBytes;
  return K.StaticBytes;
}

std::optional<uint64_t> dynamicOf(const KernelReport &K) {
  if (K.WorstLaunch)
    return K.Launches[*K.WorstLaunch].DynamicBytes;
  return uint64_t(0);
}

} // namespace

int64_t KernelDelta::growth() const {
  if (!OldBytes || !NewBytes)
    return 0;
  return static_cast<int64_t>(*NewBytes) - static_cast<int64_t>(*OldBytes);
}

std::optional<GrowthThreshold> parseGrowthThreshold(const std::string &Text) {
  // Digits first: strtod and strtoull would take a sign, blanks, `nan` and
  // `inf`.
  if (Text.empty() || !std::isdigit(static_cast<unsigned char>(Text.front())))
    return std::nullopt;
  GrowthThreshold T;
  char *End = nullptr;
  if (Text.back() == '%') {
    errno = 0;
    double P = std::strtod(Text.c_str(), &End);
    if (End != Text.c_str() + Text.size() - 1 || errno == ERANGE ||
        !std::isfinite(P))
      return std::nullopt;
    T.Percent = P;
    return T;
  }
  errno = 0;
  unsigned long long N = std::strtoull(Text.c_str(), &End, 10);
  if (errno == ERANGE)
    return std::nullopt;
  const std::string Unit(End);
  if (Unit.empty() || Unit == "B")
    T.Bytes = N;
  else if ((Unit == "KiB" || Unit == "K") && N <= UINT64_MAX / 1024)
    T.Bytes = N * 1024;
  else
    return std::nullopt;
  return T;
}

namespace {
/// With \p Threshold, whether \p D grew by more than it allows.
void markOverThreshold(KernelDelta &D,
                       const std::optional<GrowthThreshold> &Threshold) {
  if (!Threshold || D.K != KernelDelta::Kind::Grown || D.growth() <= 0)
    return;
  double Limit = Threshold->Percent ? *Threshold->Percent / 100.0 *
                                          static_cast<double>(*D.OldBytes)
                                    : static_cast<double>(Threshold->Bytes);
  D.OverThreshold = static_cast<double>(D.growth()) > Limit;
}
} // namespace

std::vector<KernelDelta>
diffReports(const Report &Old, const Report &New,
            const std::optional<GrowthThreshold> &Threshold) {
  using Key = std::pair<std::string, std::string>; // mangled, arch
  std::map<Key, const KernelReport *> Before;
  for (const KernelReport &K : Old.Kernels)
    Before.emplace(Key{K.Mangled, K.Arch}, &K);
  std::map<Key, bool> Seen;
  std::vector<KernelDelta> Out;
  auto Fill = [](KernelDelta &D, const KernelReport *O, const KernelReport *N) {
    const KernelReport &Any = N ? *N : *O;
    D.Name = Any.Name;
    D.Mangled = Any.Mangled;
    D.Arch = Any.Arch;
    if (size_t Open = Any.Name.find('<'); Open != std::string::npos && Open > 0)
      D.Template = Any.Name.substr(0, Open) + "@" + Any.Loc.File + ":" +
                   std::to_string(Any.Loc.Line);
    if (O) {
      D.OldBytes = perBlock(*O);
      D.OldStatic = O->StaticBytes;
      D.OldDynamic = dynamicOf(*O);
      D.OldBlocks = O->Occupancy.BlocksPerSm;
    }
    if (N) {
      D.NewBytes = perBlock(*N);
      D.NewStatic = N->StaticBytes;
      D.NewDynamic = dynamicOf(*N);
      D.NewBlocks = N->Occupancy.BlocksPerSm;
    }
  };
  for (const KernelReport &K : New.Kernels) {
    Key Id{K.Mangled, K.Arch};
    if (Seen[Id])
      continue; // the same kernel from another unit
    Seen[Id] = true;
    KernelDelta D;
    auto It = Before.find(Id);
    Fill(D, It == Before.end() ? nullptr : It->second, &K);
    if (It == Before.end())
      D.K = KernelDelta::Kind::Added;
    else if (D.growth() > 0 ||
             (D.OldBlocks && D.NewBlocks && *D.NewBlocks < *D.OldBlocks))
      D.K = KernelDelta::Kind::Grown;
    else if (D.growth() < 0)
      D.K = KernelDelta::Kind::Shrunk;
    markOverThreshold(D, Threshold);
    Out.push_back(std::move(D));
  }
  for (const KernelReport &K : Old.Kernels) {
    Key Id{K.Mangled, K.Arch};
    if (Seen[Id])
      continue;
    Seen[Id] = true;
    KernelDelta D;
    Fill(D, &K, nullptr);
    D.K = KernelDelta::Kind::Removed;
    Out.push_back(std::move(D));
  }
  // One instantiation of a template gone and one come: its arguments changed.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> Added,
      Removed;
  for (size_t I = 0; I < Out.size(); ++I) {
    if (Out[I].Template.empty())
      continue;
    if (Out[I].K == KernelDelta::Kind::Added)
      Added[{Out[I].Arch, Out[I].Template}].push_back(I);
    else if (Out[I].K == KernelDelta::Kind::Removed)
      Removed[{Out[I].Arch, Out[I].Template}].push_back(I);
  }
  std::vector<bool> Drop(Out.size(), false);
  for (const auto &[Key, New] : Added) {
    auto It = Removed.find(Key);
    if (New.size() != 1 || It == Removed.end() || It->second.size() != 1)
      continue;
    KernelDelta &D = Out[New.front()];
    const KernelDelta &Gone = Out[It->second.front()];
    D.OldName = Gone.Name;
    D.OldBytes = Gone.OldBytes;
    D.OldStatic = Gone.OldStatic;
    D.OldDynamic = Gone.OldDynamic;
    D.OldBlocks = Gone.OldBlocks;
    if (D.growth() > 0 ||
        (D.OldBlocks && D.NewBlocks && *D.NewBlocks < *D.OldBlocks))
      D.K = KernelDelta::Kind::Grown;
    else if (D.growth() < 0)
      D.K = KernelDelta::Kind::Shrunk;
    else
      D.K = KernelDelta::Kind::Retemplated;
    markOverThreshold(D, Threshold);
    Drop[It->second.front()] = true;
  }
  std::vector<KernelDelta> Kept;
  for (size_t I = 0; I < Out.size(); ++I)
    if (!Drop[I])
      Kept.push_back(std::move(Out[I]));
  return Kept;
}

Report mergeReports(std::vector<Report> Parts) {
  Report R;
  for (Report &P : Parts) {
    R.Units.insert(R.Units.end(), P.Units.begin(), P.Units.end());
    R.Kernels.insert(R.Kernels.end(), P.Kernels.begin(), P.Kernels.end());
    R.Diagnostics.insert(R.Diagnostics.end(), P.Diagnostics.begin(),
                         P.Diagnostics.end());
    R.ToolMessages.insert(R.ToolMessages.end(), P.ToolMessages.begin(),
                          P.ToolMessages.end());
    if (R.SourceRoot.empty())
      R.SourceRoot = P.SourceRoot;
  }
  finalizeReport(R);
  // A message about the whole run appears once, whichever shard said it.
  std::vector<Diagnostic> Unique;
  for (const Diagnostic &D : R.ToolMessages)
    if (std::none_of(Unique.begin(), Unique.end(), [&](const Diagnostic &U) {
          return U.Message == D.Message && U.Loc.File == D.Loc.File;
        }))
      Unique.push_back(D);
  R.ToolMessages = std::move(Unique);
  return R;
}

} // namespace tilefit
