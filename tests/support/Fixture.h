//===- Fixture.h - Fixture files with expectations inline -------*- C++ -*-===//
//
// A fixture is a .cu file under tests/fixtures whose expectations sit next to
// the code they describe, in the spirit of clang's -verify. Every directive is
// a comment:
//
//   // ARCHS: sm_80 sm_90 sm_120        architectures to analyse (this default
//   if absent)
//   // FLAGS: -std=c++17 -DTILE=32      compile flags, given to tilefit and to
//   nvcc alike
//   // TILEFIT-FLAGS: -fgpu-rdc         given to tilefit (Clang's spelling)
//   only
//   // NVCC-FLAGS: -rdc=true            given to nvcc only
//   // CAPACITY-DB: tiny.json           a capacity database (beside the
//   fixture) over the built-in
//   // BUDGET: 0.5                      --budget
//   // PTXAS: skip <why>                no ptxas cross-check for this file
//   // STATUS: partial                  the unit's status (ok, partial, error);
//   default ok.
//                                        In a partial unit every kernel with a
//                                        figure must be marked as untouched by
//                                        its errors
//   expected-smem {{KERNEL}} BYTES       the kernel's static figure (or
//   `unknown`, optionally
//                                        followed by {{TEXT}}, a substring of
//                                        the reason)
//   expected-alloc {{KERNEL}} {{VAR}} offset=N bytes=N align=N shape=AxBxC
//   element_bytes=N expected-unreferenced {{KERNEL}} {{VAR}}   declared but
//   never used: not allocated expected-launch {{KERNEL}} bytes=N|unknown
//   block_threads=N   a launch on this line expected-occupancy {{KERNEL}}
//   blocks=N limited_by=shared_memory opt_in=N
//                                        (spaces in values written as '_')
//   expected-registers {{KERNEL}} bytes=N|unknown registers=N
//   block_bytes=N|unknown
//                        block_threads=N limit=N|unknown basis=TEXT arrays=N
//                                        the kernel's per-thread arrays (any
//                                        subset of the keys; basis is a
//                                        substring, spaces written as '_').
//                                        Strict when the file has any: every
//                                        kernel with arrays needs one
//   expected-constant bytes=N|unknown variables=N limit=N
//                                        the unit's __constant__ data; every
//                                        unit that has some needs one
//   expected-tmem {{KERNEL}} columns=N|unknown|none capacity=N allocations=N
//   reason=TEXT
//                                        the kernel's Tensor Memory columns
//                                        (none: the architecture has none);
//                                        every kernel that allocates some needs
//                                        one
//   expected-bank {{load|store}} conflict-free|N-way|not-analysed
//                                        the bank conflicts of every such
//                                        access on this line (every kernel,
//                                        one directive for all); every
//                                        access needs one when the file has
//                                        any. Every analysed access's degree
//                                        is checked against the oracle
//                                        (BankOracle.h) in every fixture;
//                                        tilefit-bank-conflict warnings are
//                                        expected only in a file that has
//                                        expected-bank directives
//   expected-error {{TEXT}}  expected-warning {{TEXT}}  expected-remark
//   {{TEXT}} expected-note {{TEXT}}
//                                        a diagnostic on this line
//                                        (`@+N`/`@-N`: N lines away) whose
//                                        "message [check]" contains TEXT
//   ptxas-unchecked {{KERNEL}} <why>     kernel left out of the ptxas
//   cross-check
//
// Any expectation may carry an architecture prefix (`sm_90-expected-smem`) to
// hold for that architecture alone. The check is strict both ways: every kernel
// must have an expected-smem, every error and warning an expectation; notes and
// remarks too when the file expects any.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_TESTS_FIXTURE_H
#define TILEFIT_TESTS_FIXTURE_H

#include "tilefit/model/Report.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilefit {
namespace test {

struct Expectation {
  enum class Kind {
    Smem,
    Alloc,
    Unreferenced,
    Launch,
    Occupancy,
    Registers,
    Constant,
    Tmem,
    Bank,
    Error,
    Warning,
    Remark,
    Note
  };
  Kind K;
  std::string Arch;              ///< "" for every architecture.
  unsigned Line = 0;             ///< The line the directive applies to.
  std::string Kernel;            ///< Smem, Alloc, Unreferenced.
  std::string Var;               ///< Alloc, Unreferenced.
  std::optional<uint64_t> Bytes; ///< Smem; unset means `unknown`.
  std::map<std::string, std::string> Fields; ///< Alloc's key=value pairs.
  std::string Text;                          ///< Diagnostics: the substring.
  std::string Directive; ///< The directive as written, for messages.
};

struct Fixture {
  std::string Path;
  std::vector<std::string> Archs = {"sm_80", "sm_90", "sm_120"};
  std::vector<std::string> Flags;
  std::vector<std::string> TilefitFlags,
      NvccFlags; ///< Added to Flags for one side only.
  std::string CapacityDb;
  double Budget = 0.9;
  std::string PtxasSkip;     ///< Why there is no cross-check; "" if there is.
  std::string Status = "ok"; ///< The units' expected status.
  std::map<std::string, std::string> PtxasUnchecked; ///< Kernel -> why.
  std::vector<Expectation> Expectations;
  std::vector<std::string> Errors; ///< Malformed directives.
};

Fixture parseFixture(const std::string &Path);

/// The flags tilefit parses \p F with, and those nvcc compiles it with.
std::vector<std::string> tilefitFlags(const Fixture &F);
std::vector<std::string> nvccFlags(const Fixture &F);

/// Every .cu file under tests/fixtures, sorted.
std::vector<std::string> listFixtures();

/// Checks \p R against \p F for \p Arch; returns one message per mismatch.
std::vector<std::string> verify(const Fixture &F, const Report &R);

} // namespace test
} // namespace tilefit

#endif
