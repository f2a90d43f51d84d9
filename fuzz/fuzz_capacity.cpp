//===- fuzz_capacity.cpp - The capacity-database loader -------------------===//
//
// The input is a capacity database (data/README.md). When it parses, it is
// merged over the built-in database and the built-in one over it, every
// architecture is looked up (with its `a` variant), and the occupancy of a few
// launches is computed from its figures, as the checks do.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Occupancy.h"

#include <cstdlib>

using namespace tilefit;

static const CapacityDatabase &builtIn() {
  static const CapacityDatabase Db = [] {
    auto R = CapacityDatabase::load(TILEFIT_FUZZ_DATA_DIR "/capacity.json");
    if (!R)
      std::abort();
    return *R;
  }();
  return Db;
}

static void exercise(const CapacityDatabase &Db) {
  for (const std::string &Name : Db.names()) {
    for (const std::string &Variant : {Name, Name + "a", Name + "f"}) {
      const ArchCapacity *A = Db.lookup(Variant);
      if (!A)
        continue;
      for (uint64_t Threads :
           {uint64_t(1), uint64_t(128), uint64_t(1024), uint64_t(4096)}) {
        OccupancyInput In;
        In.BlockThreads = Threads;
        In.Registers = Threads == 128 ? 64 : 0;
        In.StaticBytes = 4096;
        In.DynamicBytes = Threads * 16;
        if (Threads == 1024)
          In.OptInBytes = 100000;
        if (Threads == 1)
          In.CarveoutPercent = 50;
        auto O = computeOccupancy(*A, In);
        if (O)
          (void)limitNames(O->LimitedBy);
      }
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto Db = CapacityDatabase::parse(
      std::string_view(reinterpret_cast<const char *>(Data), Size),
      "fuzz.json");
  if (!Db)
    return 0;
  exercise(*Db);
  CapacityDatabase Over = builtIn();
  if (!Over.merge(*Db))
    exercise(Over);
  CapacityDatabase Under = *Db;
  if (!Under.merge(builtIn()))
    exercise(Under);
  return 0;
}
