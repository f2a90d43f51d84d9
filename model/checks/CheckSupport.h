//===- CheckSupport.h - What every check of a kernel shares -----*- C++ -*-===//
//
// The checks live one per file in this folder, each behind the KernelCheck
// interface (or UnitCheck, for a check of a translation unit) and registered
// in Registry.cpp from the table in Checks.def (TILEFIT_KERNEL_CHECK,
// TILEFIT_UNIT_CHECK), as clang-tidy's modules register theirs. A check reads
// the kernel's (or unit's) report, with every figure filled in by analyzeUnit,
// and records its findings; it changes nothing else. Adding one is a file here
// that defines `create<Enum>Check()` and a line in Checks.def. The checks
// depend on the analysis's options, not on the analysis that runs them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_CHECKS_CHECKSUPPORT_H
#define TILEFIT_MODEL_CHECKS_CHECKSUPPORT_H

#include "tilefit/model/AnalysisOptions.h"
#include "tilefit/model/ByteUnits.h"
#include "tilefit/model/Capacity.h"
#include "tilefit/model/Checks.h"
#include "tilefit/model/Layout.h"
#include "tilefit/model/Messages.h"
#include "tilefit/model/Occupancy.h"
#include "tilefit/model/Report.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilefit {
namespace checks {

using tilefit::bytesPhrase;

/// " (float[64][33])", or "" without a type.
std::string shapeSuffix(const SharedVar &V);
std::string registersPhrase(uint64_t Registers);

/// One note per allocation, largest first; \p Advice is appended to the largest
/// one's note.
std::vector<Note> allocationNotes(const KernelReport &K, const Words &Advice);
/// A finding of check \p Id about \p K, at the kernel, with its figures.
Diagnostic makeDiagnostic(CheckId Id, const KernelReport &K, Words Message);
/// Notes for the launch that asks the most and for the `extern __shared__`
/// arrays it sizes.
void addLaunchNotes(const KernelReport &K, Diagnostic &D);
/// " (stated by its `// tilefit-dynamic-smem` comment)" for a size the user
/// stated (LaunchReport::StatedBy); "" for one tilefit computed.
std::string statedPhrase(const LaunchReport &L);
/// "53248 bytes (52 KiB)", or "… (1024 static + 52224 dynamic at launch)" with
/// a launch.
std::string totalPhrase(const KernelReport &K, uint64_t Total);
/// The largest request of any launch whose dynamic size is known; the static
/// part alone without launches. Only for a kernel whose static figure is known.
uint64_t totalBytes(const KernelReport &K);
/// The occupancy calculator's input for \p K at its largest launch.
OccupancyInput occupancyInput(const KernelReport &K, uint64_t Threads,
                              std::optional<uint64_t> Registers,
                              std::optional<int> Carveout);

/// What would fit: for each array extent written as one name (a template
/// parameter, a constant, a macro), the largest value that meets a goal, found
/// by laying the kernel out again with that extent smaller; and the most
/// dynamic memory that meets it.
class FitAdvisor {
public:
  FitAdvisor(const TranslationUnitFacts &TU, const UnitLayout &Layout,
             size_t Kernel)
      : TU(TU), Layout(Layout), Kernel(Kernel) {}

  /// One note per changeable extent whose smaller value makes \p Fits(static
  /// total) true.
  std::vector<Note> extentNotes(const std::function<bool(uint64_t)> &Fits,
                                const Words &Goal) const;

  /// For \p K (this advisor's kernel) above the static limit: its largest
  /// array made `extern __shared__`, each launch asking for its bytes, where
  /// that edit is mechanical and the kernel then fits (ExternSharedFix.cpp).
  std::optional<FixIt> externFix(const KernelReport &K) const;

  /// The largest value in [0, Max] for which \p Ok holds (Ok is monotone, true
  /// at 0).
  static std::optional<uint64_t>
  largest(uint64_t Max, const std::function<bool(uint64_t)> &Ok);

private:
  const TranslationUnitFacts &TU;
  const UnitLayout &Layout;
  size_t Kernel;
};

/// What a check of one kernel sees besides the kernel's report.
struct KernelContext {
  const FitAdvisor &Fit;
  const ArchCapacity *Arch;
  const AnalysisOptions &Opts;
  std::optional<uint64_t>
      Registers; ///< For occupancy: --registers, else -maxrregcount.
  std::optional<int> Carveout; ///< The kernel's preferred carveout, when set.
};

/// Records a finding (dropped when its check is not enabled).
using Recorder = std::function<void(Diagnostic)>;

/// Records \p D, a finding about \p K, with the note that names where the
/// kernel was instantiated (for a template) last.
void recordFinding(const KernelReport &K, Diagnostic D, const Recorder &Record);

/// The launch notes (addLaunchNotes), then what would fit: for each extent,
/// the value with which the static part plus \p Dynamic bytes is at most
/// \p Limit (\p Goal says what that achieves).
void addFitNotes(const KernelReport &K, const FitAdvisor &Fit, uint64_t Limit,
                 uint64_t Dynamic, const Words &Goal, Diagnostic &D);

/// One check over one kernel.
class KernelCheck {
public:
  virtual ~KernelCheck() = default;
  virtual void check(const KernelReport &K, const KernelContext &C,
                     const Recorder &Record) const = 0;
};

/// Every kernel check of Checks.def, in its order.
const std::vector<std::unique_ptr<KernelCheck>> &kernelChecks();

/// One check over one translation unit, and over the program the units of a
/// run make.
class UnitCheck {
public:
  virtual ~UnitCheck() = default;
  /// \p U is the unit's report, with its constant memory laid out; findings
  /// go to \p Out when the check is enabled in \p Opts.
  virtual void check(const TranslationUnitFacts &TU, const UnitReport &U,
                     const AnalysisOptions &Opts,
                     std::vector<Diagnostic> &Out) const = 0;
  /// After every unit's check: what only the whole program shows.
  virtual void checkProgram(const AnalysisOptions &Opts, Report &R) const {}
};

/// Every unit check of Checks.def, in its order.
const std::vector<std::unique_ptr<UnitCheck>> &unitChecks();

} // namespace checks
} // namespace tilefit

#endif
