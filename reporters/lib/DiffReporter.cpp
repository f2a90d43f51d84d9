//===- DiffReporter.cpp ---------------------------------------------------===//
#include "tilefit/reporters/DiffReporter.h"

#include "tilefit/model/ByteUnits.h"

#include <nlohmann/json.hpp>

namespace tilefit {
namespace {

const char *kindName(KernelDelta::Kind K) {
  switch (K) {
  case KernelDelta::Kind::Added:
    return "added";
  case KernelDelta::Kind::Removed:
    return "removed";
  case KernelDelta::Kind::Grown:
    return "grown";
  case KernelDelta::Kind::Shrunk:
    return "shrunk";
  case KernelDelta::Kind::Unchanged:
    return "unchanged";
  case KernelDelta::Kind::Retemplated:
    return "arguments changed";
  }
  return "unchanged";
}

std::string bytes(const std::optional<uint64_t> &V) {
  return V ? exactBytes(*V) : "-";
}
std::string blocks(const std::optional<uint64_t> &V) {
  return V ? std::to_string(*V) + "/SM" : "-";
}

std::string change(const KernelDelta &D) {
  int64_t G = D.growth();
  if (G == 0)
    return "";
  std::string S =
      (G > 0 ? "+" : "-") + exactBytes(static_cast<uint64_t>(G > 0 ? G : -G));
  if (D.OldBytes && *D.OldBytes) {
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), " (%+.1f%%)",
                  100.0 * static_cast<double>(G) /
                      static_cast<double>(*D.OldBytes));
    S += Buf;
  }
  return S;
}

} // namespace

void renderDiff(const std::vector<KernelDelta> &Deltas, DiffFormat Format,
                std::ostream &OS) {
  size_t Unchanged = 0, Over = 0;
  for (const KernelDelta &D : Deltas) {
    Unchanged += D.K == KernelDelta::Kind::Unchanged;
    Over += D.OverThreshold;
  }
  if (Format == DiffFormat::Json) {
    nlohmann::ordered_json Doc;
    Doc["schema"] = "tilefit-diff/1";
    nlohmann::ordered_json Items = nlohmann::ordered_json::array();
    auto Opt = [](const std::optional<uint64_t> &V) {
      return V ? nlohmann::ordered_json(*V) : nlohmann::ordered_json(nullptr);
    };
    for (const KernelDelta &D : Deltas)
      Items.push_back({{"kernel", D.Name},
                       {"mangled", D.Mangled},
                       {"arch", D.Arch},
                       {"change", kindName(D.K)},
                       {"old_kernel", D.OldName.empty()
                                          ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(D.OldName)},
                       {"old_bytes", Opt(D.OldBytes)},
                       {"new_bytes", Opt(D.NewBytes)},
                       {"old_static", Opt(D.OldStatic)},
                       {"new_static", Opt(D.NewStatic)},
                       {"old_dynamic", Opt(D.OldDynamic)},
                       {"new_dynamic", Opt(D.NewDynamic)},
                       {"old_blocks_per_sm", Opt(D.OldBlocks)},
                       {"new_blocks_per_sm", Opt(D.NewBlocks)},
                       {"growth", D.growth()},
                       {"over_threshold", D.OverThreshold}});
    Doc["kernels"] = std::move(Items);
    Doc["over_threshold"] = Over;
    OS << Doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << "\n";
    return;
  }
  std::vector<const KernelDelta *> Changed;
  for (const KernelDelta &D : Deltas)
    if (D.K != KernelDelta::Kind::Unchanged)
      Changed.push_back(&D);
  const bool Md = Format == DiffFormat::Markdown;
  if (Md)
    OS << "### tilefit: shared memory changes\n\n";
  if (Changed.empty()) {
    OS << "No kernel's shared memory changed (" << Unchanged
       << " unchanged).\n";
    return;
  }
  if (Md)
    OS << "| | kernel | arch | before | after | change | blocks/SM "
          "|\n|---|---|---|---:|---:|---:|---:|\n";
  for (const KernelDelta *D : Changed) {
    std::string Mark = D->OverThreshold ? (Md ? ":x:" : "!") : "";
    std::string Blocks = blocks(D->OldBlocks) + " -> " + blocks(D->NewBlocks);
    // A template whose arguments changed: the old instantiation, then the new
    // one.
    const std::string Kind =
        std::string(kindName(D->K)) +
        (D->OldName.empty() || D->K == KernelDelta::Kind::Retemplated
             ? ""
             : " (arguments changed)");
    const std::string Name =
        D->OldName.empty() ? D->Name : D->OldName + " -> " + D->Name;
    if (Md)
      OS << "| " << Mark << " " << Kind << " | `" << Name << "` | " << D->Arch
         << " | " << bytes(D->OldBytes) << " | " << bytes(D->NewBytes) << " | "
         << change(*D) << " | " << Blocks << " |\n";
    else
      OS << Kind << (D->OverThreshold ? " (over the threshold)" : "") << ": "
         << Name << " on " << D->Arch << ": " << bytes(D->OldBytes) << " -> "
         << bytes(D->NewBytes) << (change(*D).empty() ? "" : " " + change(*D))
         << ", " << Blocks << "\n";
  }
  OS << (Md ? "\n" : "") << Changed.size() << " changed, " << Unchanged
     << " unchanged";
  if (Over)
    OS << "; " << Over << " grew more than the threshold";
  OS << "\n";
}

} // namespace tilefit
