//===- HeaderRecord.h - What parses record of a precompiled header -*- C++
//-*-===//
//
// The first parse that loads a preamble or a precompiled prefix records what
// later parses need of the header's declarations, by their IDs, so that those
// do not read the declarations themselves. The stores (HeaderPchStore,
// PreambleStore) keep one record of each kind per header.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_FRONTEND_HEADERRECORD_H
#define TILEFIT_FRONTEND_HEADERRECORD_H

namespace tilefit {
namespace frontend {

enum class HeaderRecord {
  /// The body slicer's (matchers::InventoryRecord): what the header's
  /// functions name.
  Slicing,
  /// The walks' (TraversalScope.h, recordHeaderWalk): which members of the
  /// header's namespaces they visit.
  Walk,
};

/// How many kinds there are.
constexpr unsigned HeaderRecordKinds = 2;

} // namespace frontend
} // namespace tilefit

#endif
