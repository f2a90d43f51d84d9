//===- DiffReporter.h - A footprint comparison, rendered --------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_DIFFREPORTER_H
#define TILEFIT_REPORTERS_DIFFREPORTER_H

#include "tilefit/model/Diff.h"

#include <ostream>
#include <vector>

namespace tilefit {

enum class DiffFormat { Text, Json, Markdown };

/// Kernels added, removed, grown and shrunk (unchanged ones are counted, not
/// listed).
void renderDiff(const std::vector<KernelDelta> &Deltas, DiffFormat Format,
                std::ostream &OS);

} // namespace tilefit

#endif
