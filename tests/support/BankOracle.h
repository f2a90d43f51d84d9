//===- BankOracle.h - Bank conflicts by brute force, for tests --*- C++ -*-===//
//
// An oracle for the bank analysis (model/Banks.h), written apart from it: its
// own interpreter of the access's expressions, run for every thread of the
// block and every iteration of the loops, and the bank rule simulated as the
// issue states it, one warp request at a time (32 banks of 4 bytes; one
// phase for accesses of 4 bytes or less, half-warps for 8, quarter-warps for
// 16; lanes reading the same word share it; a phase costs the most distinct
// words one bank delivers). It shares nothing with model/lib/Banks.cpp but the
// record it reads.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_TESTS_BANKORACLE_H
#define TILEFIT_TESTS_BANKORACLE_H

#include "tilefit/model/Report.h"

#include <string>

namespace tilefit {
namespace test {

struct BankOracleResult {
  bool Ok = false;
  std::string Why;     ///< When not Ok.
  unsigned Degree = 0; ///< The most wavefronts of any phase of any request.
};

BankOracleResult bankOracle(const BankAccessReport &B);

} // namespace test
} // namespace tilefit

#endif
