//===- CalcReporter.h - The calculator's results, rendered ------*- C++ -*-===//
#ifndef TILEFIT_REPORTERS_CALCREPORTER_H
#define TILEFIT_REPORTERS_CALCREPORTER_H

#include "tilefit/model/Calc.h"

#include <ostream>
#include <vector>

namespace tilefit {

/// The text report, e.g.
///   tile 128 x 256 float32 (32 bits), 2 versions
///   elements      32768
///   per copy      131072 bytes (128 KiB)
///   total         262144 bytes (256 KiB)
///   sm_90 shared  232448 bytes (227 KiB) per block with opt-in: does not fit
///   (29696 bytes over)
void renderCalcText(const CalcResult &R, std::ostream &OS);
/// One JSON document (`tilefit-calc/1`; the fields are described in the
/// README).
void renderCalcJson(const CalcResult &R, std::ostream &OS);
/// One tile checked against several architectures (`--arch sm_80,sm_90`): the
/// tile once, then a column per architecture with its capacity and verdict. One
/// result: as above.
void renderCalcText(const std::vector<CalcResult> &Rs, std::ostream &OS);
/// Several architectures: the first one's document, `capacities` (one object
/// per architecture, as `capacity`) and `fits` (every one fits).
void renderCalcJson(const std::vector<CalcResult> &Rs, std::ostream &OS);
/// The arithmetic of \p R, line by line (the worked example).
void renderCalcArithmetic(const CalcResult &R, std::ostream &OS);

/// `tilefit calc --occupancy`: the block, then per architecture its resident
/// blocks per SM, warps and what limits them, e.g.
///   block         256 threads, 64 registers, 49152 bytes (48 KiB) of shared
///   sm_90         4 blocks per SM, 32 of 64 warps (50%), limited by registers
void renderOccupancyText(const std::vector<CalcOccupancy> &Rs, uint64_t Threads,
                         uint64_t Registers, uint64_t SharedBytes,
                         std::ostream &OS);
/// The same as one JSON document (`tilefit-calc-occupancy/1`).
void renderOccupancyJson(const std::vector<CalcOccupancy> &Rs, uint64_t Threads,
                         uint64_t Registers, uint64_t SharedBytes,
                         std::ostream &OS);

void renderElementTypes(bool Json, std::ostream &OS);
void renderScopes(bool Json, std::ostream &OS);

} // namespace tilefit

#endif
