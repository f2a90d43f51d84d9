//===- Calc.cpp - tilefit calc: the options and the run -------------------===//
//
// The figures are the model's (tilefit/model/Calc.h), their text and JSON the
// reporters' (tilefit/reporters/CalcReporter.h). This file reads the options
// (joining `--tile 128 256` into one value first), loads the capacity database
// when an architecture is named, prints the worked example, and picks the exit
// status.
//
//===----------------------------------------------------------------------===//
#include "Calc.h"

#include "TilefitMain.h"

#include "tilefit/model/Calc.h"
#include "tilefit/reporters/CalcReporter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <iostream>

using namespace llvm;

namespace tilefit {
namespace tool {

cl::SubCommand
    CalcCommand("calc",
                "Footprint of a tile: elements, bytes, whether it fits shared "
                "memory, registers or Tensor Memory");

cl::OptionCategory CalcCategory("tilefit calc options");

const char CalcOverview[] =
    "tilefit calc: what a tile takes on chip, by hand: its elements and bytes "
    "for an element\n"
    "type (float32, bf16, e4m3, nvfp4, cutlass::half_t, torch.bfloat16, ...), "
    "copies, and\n"
    "whether it fits an architecture's shared memory, registers or Tensor "
    "Memory (or a\n"
    "capacity you give). With no options: a worked example.\n\n"
    "  tilefit calc --tile 128x64 --dtype bf16 --versions 3 --arch "
    "sm_80,sm_90\n"
    "  tilefit calc --tile 64 64 --dtype fp16 --capacity 48KiB --explain\n"
    "  tilefit calc --tile 128 128 --dtype float32 --scope registers --threads "
    "256 --arch sm_90\n\n"
    "Exit status: 0 fits (or nothing to check), 1 does not fit, 2 bad input.\n";

namespace {

cl::list<std::string>
    Tile("tile", cl::CommaSeparated,
         cl::desc("The tile's dimensions: --tile 128 256, --tile 128x256 or\n"
                  "--tile 128,256. Several --tile are several operands,\n"
                  "summed (the A and B tiles of one stage: --tile 128x32\n"
                  "--tile 32x128), each with its own --dtype and --versions\n"
                  "where those are given once per --tile"),
         cl::value_desc("d1 d2 ..."), cl::sub(CalcCommand),
         cl::cat(CalcCategory));
cl::list<std::string>
    DType("dtype",
          cl::desc("Element type, by short name, CUDA type or the names of\n"
                   "PyTorch and CUTLASS (float32, bf16, __half, e4m3, nvfp4,\n"
                   "cutlass::half_t, torch.bfloat16, ...; see --list-dtypes)"),
          cl::value_desc("type"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::list<std::string>
    Versions("versions",
             cl::desc("Copies of the tile (2 when double-buffered; default 1)"),
             cl::value_desc("n"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string> CalcArch(
    "arch",
    cl::desc("Check against these architectures' capacity for the scope\n"
             "(--arch sm_80,sm_90: a column per architecture)"),
    cl::value_desc("sm_XX,..."), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string> Capacity(
    "capacity",
    cl::desc("Check against this capacity instead of an architecture's\n"
             "(bytes, or 228KiB, 1.5MiB; for registers, per thread)"),
    cl::value_desc("bytes"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string> Threads(
    "threads",
    cl::desc("Threads the tile is spread over: prints the 32-bit registers\n"
             "per thread (required by --scope registers)"),
    cl::value_desc("n"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string>
    Scope("scope",
          cl::desc("Where the tile lives: shared (default), registers or tmem\n"
                   "(see --list-scopes)"),
          cl::init("shared"), cl::value_desc("shared|registers|tmem"),
          cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<bool> OccupancyMode(
    "occupancy",
    cl::desc("Blocks per SM instead of a tile's size: a block of --threads\n"
             "threads, --registers registers each and --smem bytes of\n"
             "shared memory on each --arch, as cuda_occupancy.h computes it"),
    cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string> Registers(
    "registers",
    cl::desc("--occupancy: registers per thread (ptxas's count; default:\n"
             "not given, and they do not limit)"),
    cl::value_desc("n"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string>
    Smem("smem",
         cl::desc("--occupancy: shared memory per block, static and dynamic\n"
                  "together (bytes, or 48KiB; default 0)"),
         cl::value_desc("bytes"), cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<bool> ListDTypes("list-dtypes",
                         cl::desc("List the element types and exit"),
                         cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<bool>
    ListScopes("list-scopes",
               cl::desc("List the scopes and their capacities and exit"),
               cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<bool>
    Explain("explain",
            cl::desc("Show the arithmetic, line by line, after the result"),
            cl::sub(CalcCommand), cl::cat(CalcCategory));
cl::opt<std::string>
    CalcFormat("format", cl::desc("Output format: text (default) or json"),
               cl::init("text"), cl::value_desc("text|json"),
               cl::sub(CalcCommand), cl::cat(CalcCategory));

const char Usage[] =
    "usage: tilefit calc --tile D1 [D2 ...] [--tile ...] --dtype TYPE "
    "[--versions N]\n"
    "                    [--arch sm_XX[,sm_YY...] | --capacity BYTES] "
    "[--threads N]\n"
    "                    [--scope shared|registers|tmem] [--explain] "
    "[--format=text|json]\n"
    "       tilefit calc --occupancy --threads N [--registers N] [--smem "
    "BYTES] --arch sm_XX[,...]\n"
    "       tilefit calc --list-dtypes | --list-scopes\n";

int usageError(const std::string &Message) {
  errs() << "tilefit calc: error: " << Message << "\n";
  return ExitFailure;
}

/// A number option: its value, or a message printed and nothing.
std::optional<uint64_t> number(const char *What, const std::string &Text) {
  auto N = parseCalcNumber(What, Text);
  if (!N) {
    usageError(N.error());
    return std::nullopt;
  }
  return *N;
}

/// The worked example: the arithmetic line by line, then what the command
/// prints.
int workedExample(const CalcResult &R, bool Json) {
  if (Json) {
    renderCalcJson(R, std::cout);
    return ExitOk;
  }
  std::cout << "tilefit calc: what a tile takes on chip. A worked example: a "
               "128 x 256 float32\n"
               "tile, double-buffered, in shared memory on sm_90.\n\n"
               "$ tilefit calc --tile 128 256 --dtype float32 --versions 2 "
               "--arch sm_90\n";
  renderCalcText(R, std::cout);
  std::cout << "\nBy hand:\n";
  renderCalcArithmetic(R, std::cout);
  std::cout << "\n"
            << Usage
            << "See tilefit calc --help, --list-dtypes, --list-scopes.\n";
  return ExitOk;
}

bool anyCalcOption() {
  return Tile.getNumOccurrences() || DType.getNumOccurrences() ||
         Versions.getNumOccurrences() || CalcArch.getNumOccurrences() ||
         Capacity.getNumOccurrences() || Threads.getNumOccurrences() ||
         Scope.getNumOccurrences() || OccupancyMode.getNumOccurrences();
}

/// The dimensions of each --tile, in order: `--tile 128x64 --tile 64x128` is
/// two operands, `--tile 128,64` one (cl splits its commas, at one position).
std::optional<std::vector<std::vector<uint64_t>>> tileOperands() {
  std::vector<std::vector<uint64_t>> Operands;
  unsigned LastPosition = 0;
  for (size_t I = 0; I < Tile.size(); ++I) {
    if (I == 0 || Tile.getPosition(I) != LastPosition)
      Operands.emplace_back();
    LastPosition = Tile.getPosition(I);
    // 128x64 is 128 64.
    for (StringRef D : llvm::split(StringRef(Tile[I]), 'x'))
      for (StringRef E : llvm::split(D, 'X')) {
        auto N = number("tile dimension", E.str());
        if (!N)
          return std::nullopt;
        Operands.back().push_back(*N);
      }
  }
  return Operands;
}

/// The value of \p Option for operand \p I of \p Count: the one given for
/// all, or its own; \p Default when none is given.
std::optional<std::string> perOperand(const cl::list<std::string> &Option,
                                      const char *Name, size_t I, size_t Count,
                                      const std::string &Default) {
  if (Option.empty())
    return Default;
  if (Option.size() == 1)
    return Option.front();
  if (Option.size() == Count)
    return Option[I];
  usageError(std::string("--") + Name + " is given " +
             std::to_string(Option.size()) + " times: give it once, or once " +
             "per --tile (" + std::to_string(Count) + ")");
  return std::nullopt;
}

/// Reads the options into \p Operands (one CalcRequest each: tile, type,
/// versions) and \p Req (the rest); false, with the error said, when one is
/// malformed.
bool readCalcRequest(std::vector<CalcRequest> &Operands, CalcRequest &Req) {
  auto Tiles = tileOperands();
  if (!Tiles)
    return false;
  if (Tiles->empty())
    Tiles->emplace_back(); // calculate() says a tile is missing
  for (size_t I = 0; I < Tiles->size(); ++I) {
    CalcRequest Op;
    Op.Tile = (*Tiles)[I];
    auto T = perOperand(DType, "dtype", I, Tiles->size(), "");
    auto V = perOperand(Versions, "versions", I, Tiles->size(), "1");
    if (!T || !V)
      return false;
    Op.DType = *T;
    auto N = number("--versions", *V);
    if (!N)
      return false;
    Op.Versions = *N;
    Operands.push_back(std::move(Op));
  }
  if (Threads.getNumOccurrences()) {
    if (!(Req.Threads = number("--threads", Threads)))
      return false;
  }
  if (Capacity.getNumOccurrences()) {
    auto Bytes = parseCalcBytes("--capacity", Capacity);
    if (!Bytes) {
      usageError(Bytes.error());
      return false;
    }
    Req.Capacity = *Bytes;
  }
  auto S = parseCalcScope(Scope);
  if (!S) {
    usageError("--scope " + Scope + ": expected shared, registers or tmem");
    return false;
  }
  Req.Scope = *S;
  Req.Arch = CalcArch;
  return true;
}

} // namespace

std::vector<const char *> joinTileValues(std::vector<const char *> Args) {
  static std::deque<std::string>
      Joined; // Must outlive the parse; a deque keeps c_str() stable.
  if (Args.size() < 2 || StringRef(Args[1]) != "calc")
    return Args;
  auto IsValue = [](StringRef A) {
    // A dimension, a comma list of them, or a negative number (an error said
    // later, clearly).
    return !A.empty() && !A.starts_with("--") &&
           A.find_first_not_of("0123456789,-xX") == StringRef::npos &&
           A.find_first_of("0123456789") != StringRef::npos;
  };
  std::vector<const char *> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A(Args[I]);
    StringRef Flag = A.starts_with("--")  ? A.drop_front(2)
                     : A.starts_with("-") ? A.drop_front(1)
                                          : "";
    bool Bare = Flag == "tile", WithValue = Flag.starts_with("tile=");
    if (!Bare && !WithValue) {
      Out.push_back(Args[I]);
      continue;
    }
    std::string Values = WithValue ? Flag.drop_front(5).str() : "";
    size_t J = I + 1;
    for (; J < Args.size() && IsValue(Args[J]); ++J)
      Values += (Values.empty() ? "" : ",") + std::string(Args[J]);
    if (J == I + 1) { // Nothing to join: leave it to cl (and its message for a
                      // missing value).
      Out.push_back(Args[I]);
      continue;
    }
    Joined.push_back("--tile=" + Values);
    Out.push_back(Joined.back().c_str());
    I = J - 1;
  }
  return Out;
}

/// `tilefit calc --occupancy`.
static int runOccupancy(const std::string &CapacityDbPath, bool Json) {
  if (CalcArch.empty() || !Threads.getNumOccurrences())
    return usageError("--occupancy needs --arch and --threads (and takes "
                      "--registers and --smem)");
  auto BlockThreads = number("--threads", Threads);
  if (!BlockThreads)
    return ExitFailure;
  uint64_t Regs = 0, Shared = 0;
  if (Registers.getNumOccurrences()) {
    auto N = number("--registers", Registers);
    if (!N)
      return ExitFailure;
    Regs = *N;
  }
  if (Smem.getNumOccurrences()) {
    auto Bytes = parseCalcBytes("--smem", Smem);
    if (!Bytes)
      return usageError(Bytes.error());
    Shared = *Bytes;
  }
  auto Db = CapacityDatabase::load(CapacityDbPath);
  if (!Db)
    return usageError(Db.error());
  std::vector<CalcOccupancy> Results;
  for (StringRef A : llvm::split(StringRef(CalcArch), ',')) {
    if (A.trim().empty())
      continue;
    auto R =
        calculateOccupancy(*BlockThreads, Regs, Shared, A.trim().str(), *Db);
    if (!R)
      return usageError(R.error());
    Results.push_back(std::move(*R));
  }
  if (Json)
    renderOccupancyJson(Results, *BlockThreads, Regs, Shared, std::cout);
  else
    renderOccupancyText(Results, *BlockThreads, Regs, Shared, std::cout);
  // A block no SM can hold does not fit, as a tile above its capacity.
  for (const CalcOccupancy &R : Results)
    if (R.Resident.BlocksPerSm == 0)
      return ExitFindings;
  return ExitOk;
}

int runCalc(const std::string &CapacityDbPath) {
  bool Json = CalcFormat == "json";
  if (!Json && CalcFormat != "text")
    return usageError("--format=" + CalcFormat + ": expected text or json");
  if (ListDTypes || ListScopes) {
    if (ListDTypes)
      renderElementTypes(Json, std::cout);
    if (ListScopes)
      renderScopes(Json, std::cout);
    return ExitOk;
  }
  if (OccupancyMode)
    return runOccupancy(CapacityDbPath, Json);

  CalcRequest Req;
  std::vector<CalcRequest> Operands;
  bool Example = !anyCalcOption();
  if (Example) {
    CalcRequest Op;
    Op.Tile = {128, 256};
    Op.DType = "float32";
    Op.Versions = 2;
    Operands.push_back(std::move(Op));
    Req.Arch = "sm_90";
  } else if (!readCalcRequest(Operands, Req)) {
    return ExitFailure;
  }

  // One result per architecture named (--arch sm_80,sm_90), else one.
  std::vector<std::string> Archs;
  for (StringRef A : llvm::split(Req.Arch, ','))
    if (!A.trim().empty())
      Archs.push_back(A.trim().str());
  if (Archs.empty())
    Archs.push_back("");
  std::optional<CapacityDatabase> Db;
  if (!Req.Arch.empty()) {
    auto Loaded = CapacityDatabase::load(CapacityDbPath);
    if (!Loaded)
      return usageError(Loaded.error());
    Db = std::move(*Loaded);
  }
  std::vector<CalcResult> Results;
  for (const std::string &A : Archs) {
    CalcRequest One = Req;
    One.Arch = A;
    auto R = calculateSum(Operands, One, Db ? &*Db : nullptr);
    if (!R)
      return usageError(R.error());
    Results.push_back(std::move(*R));
  }
  if (Example)
    return workedExample(Results.front(), Json);
  if (Json) {
    renderCalcJson(Results, std::cout);
  } else {
    renderCalcText(Results, std::cout);
    if (Explain)
      for (const CalcResult &R : Results) {
        std::cout << "\nBy hand"
                  << (Results.size() > 1 ? " (" + R.Fit->Arch + ")" : "")
                  << ":\n";
        renderCalcArithmetic(R, std::cout);
      }
  }
  for (const CalcResult &R : Results)
    if (R.Fit && !R.Fit->Fits)
      return ExitFindings;
  return ExitOk;
}

} // namespace tool
} // namespace tilefit
