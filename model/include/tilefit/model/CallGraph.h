//===- CallGraph.h ----------------------------------------------*- C++ -*-===//
//
// What each kernel reaches, from the raw call graph.
//
// The model's first stage, run by analyzeUnit (Analysis.h) on the facts the
// matchers hand over (FunctionFacts: callees, `__shared__` variables named and
// declared, per-thread arrays, Tensor Memory requests, `__noinline__`). It
// decides per kernel what NVVM's inlining leaves of them:
//
// - the `__shared__` variables the kernel and everything it calls refer to
//   (KernelFacts::Reached);
// - those declared in reached functions and never referenced (Unreferenced:
//   nvcc emits none);
// - the variables a function NVVM keeps out of line refers to (`__noinline__`,
//   or on a call cycle, which NVVM does not inline):
//   SharedVar::ReferencedOutOfLine, at module scope;
// - the per-thread arrays live at once (the kernel's own and those of its
//   heaviest chain of calls, with every array whose size is unknown):
//   KernelFacts::LocalArrays;
// - the Tensor Memory requests of every function reached (TmemAllocations).
//
// None of it is stored with the facts (FactsJson.h): changing a rule here needs
// no change in the matchers or the result cache.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_CALLGRAPH_H
#define TILEFIT_MODEL_CALLGRAPH_H

#include "tilefit/model/Facts.h"

#include <cstddef>
#include <vector>

namespace tilefit {

/// The functions reached from \p Root (an index into TU.Functions), \p Root
/// first, depth-first with callees in source order, each once: a walk of the
/// raw graph, which the matchers use too (the code an error may touch).
std::vector<size_t> functionsReachedFrom(const TranslationUnitFacts &TU,
                                         size_t Root);

/// Fills every kernel's Reached, Unreferenced, LocalArrays and TmemAllocations,
/// and the variables' ReferencedOutOfLine, from TU.Functions (replacing what
/// they held).
void resolveCallGraph(TranslationUnitFacts &TU);

/// Whether \p TU holds a raw call graph to resolve: a kernel with its
/// definition in TU.Functions. Facts built without one (by hand, in tests)
/// carry their decisions already.
bool hasRawCallGraph(const TranslationUnitFacts &TU);

} // namespace tilefit

#endif
