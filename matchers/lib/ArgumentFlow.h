//===- ArgumentFlow.h - Which parameters receive shared memory --*- C++ -*-===//
//
// The model counts a `__shared__` variable passed as an argument only where
// the callee uses the parameter that receives it, and a parameter passed on
// only where the next callee uses its own (SharedMemoryCollector.cpp's
// UnusedParameters): calls Clang resolved, the variable or parameter itself
// as the argument (through parentheses, casts and `&`). A sliced template
// must keep the uses of those parameters, or the model finds them unused.
//
// The flow follows exactly those calls, in the code Clang has built: the
// functions that are not templates, read when slicing is decided, and each
// body as Sema instantiates it. A template is sliced as its first
// specialization is instantiated, after the bodies that call it (Sema
// instantiates callers first); the flow then knows which of that
// specialization's parameters may receive shared memory, through the very
// callee each call resolved to rather than every function of its name. A
// specialization whose caller is instantiated after it, so that the flow
// learns too late, is found by the model's own question
// (BodySlicer::droppedUses): the unit is then parsed again whole.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_ARGUMENTFLOW_H
#define TILEFIT_MATCHERS_ARGUMENTFLOW_H

#include "SliceNames.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang {
class FunctionDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

class ArgumentFlow {
public:
  /// Reads the calls in \p FD's body (once): where one passes a `__shared__`
  /// variable, its callee's parameter receives it; where one passes a
  /// parameter, its callee's parameter receives whatever that one does.
  void scan(const clang::FunctionDecl *FD);

  /// The parameters of \p FD (a specialization or a plain function; positions
  /// in its own parameter list) that may receive a `__shared__` variable
  /// through the calls read so far.
  Positions incoming(const clang::FunctionDecl *FD) const;

  /// How many times a scan found a call passing shared memory or a parameter
  /// on: a function whose scan leaves it unchanged passes nothing.
  unsigned learnt() const { return Learnt; }

private:
  struct Edge {
    unsigned From;                 ///< the parameter passed on
    const clang::FunctionDecl *To; ///< the callee, canonical
    unsigned At;                   ///< the callee's parameter
  };
  friend class ArgumentScan;
  /// \p Callee's parameter \p At may receive shared memory; so may those it
  /// is passed on to.
  void receives(const clang::FunctionDecl *Callee, unsigned At);
  /// \p From's parameter \p Index is passed to \p To's parameter \p At.
  void passes(const clang::FunctionDecl *From, unsigned Index,
              const clang::FunctionDecl *To, unsigned At);

  llvm::DenseMap<const clang::FunctionDecl *, Positions> Incoming;
  llvm::DenseMap<const clang::FunctionDecl *, llvm::SmallVector<Edge, 2>> Edges;
  llvm::DenseSet<const clang::FunctionDecl *> Scanned;
  unsigned Learnt = 0;
};

} // namespace matchers
} // namespace tilefit

#endif
