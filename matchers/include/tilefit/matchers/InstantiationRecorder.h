//===- InstantiationRecorder.h - Where Sema instantiated what ---*- C++ -*-===//
//
// Clang keeps no record of where an explicit instantiation definition of a
// function template stood (`template __global__ void k<64>(float*);` creates no
// declaration), and a specialization's point of instantiation stays at its
// first implicit use. This Sema callback records, for every function Sema
// instantiates directly from parsed code (not from inside another
// instantiation), where that happened.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_INSTANTIATIONRECORDER_H
#define TILEFIT_MATCHERS_INSTANTIATIONRECORDER_H

#include "clang/Sema/TemplateInstCallback.h"
#include "llvm/ADT/DenseMap.h"

namespace tilefit {
namespace matchers {

class InstantiationRecorder : public clang::TemplateInstantiationCallback {
public:
  void initialize(const clang::Sema &) override {}
  void finalize(const clang::Sema &) override {}
  void atTemplateBegin(const clang::Sema &S,
                       const clang::Sema::CodeSynthesisContext &Inst) override;
  void atTemplateEnd(const clang::Sema &,
                     const clang::Sema::CodeSynthesisContext &) override {}

  /// Where \p FD's body was first instantiated while parsing (before the end of
  /// the unit). Invalid if it was instantiated only at the end of the unit or
  /// inside another instantiation.
  clang::SourceLocation
  parsedInstantiationPoint(const clang::FunctionDecl *FD) const {
    auto It = Points.find(FD);
    return It == Points.end() ? clang::SourceLocation() : It->second;
  }

private:
  llvm::DenseMap<const clang::FunctionDecl *, clang::SourceLocation> Points;
};

} // namespace matchers
} // namespace tilefit

#endif
