//===- fuzz_json_report.cpp -----------------------------------------------===//
//
// Reading reports back (diff, merge, --baseline).
//
// The input is a tilefit-report/1 document. When it reads, rendering it again
// must give a document that reads back and renders the same (ReportJson.h
// promises it); it is then compared with itself and merged with itself as
// `tilefit diff` and `tilefit merge` do.
//
//===----------------------------------------------------------------------===//
#include "tilefit/model/Diff.h"
#include "tilefit/reporters/DiffReporter.h"
#include "tilefit/model/ReportJson.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace tilefit;
  auto R = readJsonReport(
      std::string_view(reinterpret_cast<const char *>(Data), Size), "old.json");
  if (!R)
    return 0;
  ToolInfo Tool{"tilefit", "fuzz"};
  std::ostringstream First;
  renderJson(*R, Tool, First);
  auto Again = readJsonReport(First.str(), "rendered.json");
  if (!Again) {
    std::fprintf(stderr, "a rendered report does not read back: %s\n",
                 Again.error().c_str());
    std::abort();
  }
  std::ostringstream Second;
  renderJson(*Again, Tool, Second);
  if (Second.str() != First.str()) {
    std::fprintf(stderr, "a report reads back differently:\n%s\n---\n%s\n",
                 First.str().c_str(), Second.str().c_str());
    std::abort();
  }

  for (const char *Threshold : {"0", "4KiB", "5%"}) {
    std::vector<KernelDelta> Deltas =
        diffReports(*R, *Again, parseGrowthThreshold(Threshold));
    for (DiffFormat F :
         {DiffFormat::Text, DiffFormat::Json, DiffFormat::Markdown}) {
      std::ostringstream Out;
      renderDiff(Deltas, F, Out);
    }
  }
  Report Merged = mergeReports({*R, *Again});
  std::ostringstream Out;
  renderJson(Merged, Tool, Out);
  return 0;
}
