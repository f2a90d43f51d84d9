//===- Diff.h - Footprints of two reports compared --------------*- C++ -*-===//
#ifndef TILEFIT_MODEL_DIFF_H
#define TILEFIT_MODEL_DIFF_H

#include "tilefit/model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace tilefit {

/// One kernel on one architecture, before and after.
struct KernelDelta {
  /// Retemplated: one instantiation of a kernel template gone and one come,
  /// with the same figure (when the figure changed too, Grown or Shrunk with
  /// OldName set).
  enum class Kind { Added, Removed, Grown, Shrunk, Unchanged, Retemplated };
  Kind K = Kind::Unchanged;
  std::string Name, Mangled, Arch;
  /// The kernel template and where it is defined (`gemm_tiled@k.cu:12`); empty
  /// for a kernel that is not a template's instantiation.
  std::string Template;
  /// When the template's arguments changed (`gemm_tiled<128, 64, 16, 3>` to
  /// `<..., 5>`): the old instantiation's name, compared with the new one.
  std::string OldName;
  /// Per block: static + dynamic at the largest launch (unset when unknown or
  /// absent).
  std::optional<uint64_t> OldBytes, NewBytes;
  std::optional<uint64_t> OldStatic, NewStatic;
  std::optional<uint64_t> OldDynamic, NewDynamic;
  std::optional<uint64_t> OldBlocks, NewBlocks; ///< Resident blocks per SM.
  bool OverThreshold = false; ///< Grew by more than --max-growth.

  /// NewBytes - OldBytes (negative when it shrank); 0 when either is unknown.
  int64_t growth() const;
};

/// `--max-growth`: a number of bytes, or a percentage of the old figure.
struct GrowthThreshold {
  uint64_t Bytes = 0;
  std::optional<double> Percent;
};

/// Parses `4096`, `4KiB`, `10%`. Nothing for anything else.
std::optional<GrowthThreshold> parseGrowthThreshold(const std::string &Text);

/// Compares kernels by mangled name and architecture. Kernels of both, in \p
/// New's order, then those only in \p Old. With \p Threshold, a kernel that
/// grew by more is marked. A kernel template with exactly one instantiation
/// gone and one come on an architecture (the usual tuning change, `<128, 64,
/// 16, 3>` to `<..., 5>`) is one kernel whose arguments changed, compared old
/// with new; with several gone or come, they stay added and removed (which one
/// became which cannot be told).
std::vector<KernelDelta>
diffReports(const Report &Old, const Report &New,
            const std::optional<GrowthThreshold> &Threshold);

/// Concatenates reports (shards of one run) and sorts the result as one run
/// would.
Report mergeReports(std::vector<Report> Parts);

} // namespace tilefit

#endif
