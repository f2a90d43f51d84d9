//===- Parts.cpp - Finished units' parts of the report, packed ------------===//
//
// A project's report is assembled from one part per unit and architecture. A
// part in memory is thousands of small allocations (each kernel's names,
// paths, allocations, limits) made between two parses: kept as they are, a
// 400-unit run would hold about 30 MB of them, scattered over pages the parses
// then cannot give back. Each part is kept instead as its JSON document
// (ReportJson.cpp, the codec `tilefit merge` reads), compressed: one block of a
// few kilobytes. The report is rebuilt from them once every parse is over.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "tilefit/model/ReportJson.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"

#include <iterator>
#include <sstream>

namespace tilefit {
namespace driver {

namespace {

/// The compression parts are packed with, if LLVM was built with one.
std::optional<llvm::compression::Format> packingFormat() {
  using llvm::compression::Format;
  for (Format F : {Format::Zstd, Format::Zlib})
    if (!llvm::compression::getReasonIfUnsupported(F))
      return F;
  return std::nullopt;
}

template <typename T> void append(std::vector<T> &To, std::vector<T> &From) {
  To.insert(To.end(), std::make_move_iterator(From.begin()),
            std::make_move_iterator(From.end()));
  From.clear();
}

} // namespace

void PackedPart::pack(Report &&Part, bool Compress) {
  Kernels = Part.Kernels.size();
  const std::optional<llvm::compression::Format> F = packingFormat();
  if (!F || !Compress) {
    Plain = std::move(Part);
    return;
  }
  std::ostringstream OS;
  renderJson(Part, ToolInfo(), OS);
  Part = Report();
  const std::string Json = OS.str();
  RawBytes = Json.size();
  llvm::SmallVector<uint8_t, 0> Out;
  // The fastest level: the documents are repetitive enough for it.
  llvm::compression::compress({*F, 1}, llvm::arrayRefFromStringRef(Json), Out);
  Packed.assign(Out.begin(), Out.end());
  Packed.shrink_to_fit();
}

llvm::Error PackedPart::unpackInto(Report &R) {
  Report Part;
  if (Plain) {
    Part = std::move(*Plain);
    Plain.reset();
  } else {
    llvm::SmallVector<uint8_t, 0> Json;
    if (llvm::Error E = llvm::compression::decompress(*packingFormat(), Packed,
                                                      Json, RawBytes))
      return E;
    Packed = {};
    Result<Report> Read = readJsonReport(
        std::string_view(llvm::toStringRef(Json)), "a unit's part");
    if (!Read)
      return llvm::createStringError(Read.error());
    Part = std::move(*Read);
  }
  append(R.Units, Part.Units);
  append(R.Kernels, Part.Kernels);
  append(R.Diagnostics, Part.Diagnostics);
  return llvm::Error::success();
}

} // namespace driver
} // namespace tilefit
