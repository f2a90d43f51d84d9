//===- TypeLayout.cpp -----------------------------------------------------===//
#include "tilefit/matchers/TypeLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"

using namespace clang;

namespace tilefit {
namespace matchers {
namespace {

std::string printType(const ASTContext &Ctx, QualType T) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  PP.SuppressInlineNamespace = true;
  PP.SuppressUnwrittenScope = true;
  return T.getAsString(PP);
}

} // namespace

void describeVariableLayout(const ASTContext &Ctx, const VarDecl *VD, SharedVar &Out) {
  QualType T = VD->getType();
  Out.Type = printType(Ctx, T.getUnqualifiedType());
  Out.Align = static_cast<uint64_t>(Ctx.getDeclAlign(VD).getQuantity());

  // Shape: array extents from the outermost in.
  QualType Elem = T;
  bool Incomplete = false;
  while (const ArrayType *AT = Ctx.getAsArrayType(Elem)) {
    if (const auto *CAT = dyn_cast<ConstantArrayType>(AT)) {
      Out.Shape.push_back(CAT->getZExtSize());
    } else if (isa<IncompleteArrayType>(AT)) {
      Incomplete = true;
    } else {
      Out.UnknownReason = "the array bound is not a constant expression";
    }
    Elem = AT->getElementType();
  }
  Out.ElementType = printType(Ctx, Elem.getUnqualifiedType());
  Out.CanonicalElementType = printType(Ctx, Elem.getCanonicalType().getUnqualifiedType());

  if (Elem->isIncompleteType()) {
    Out.UnknownReason = "the element type '" + Out.ElementType + "' is incomplete";
    return;
  }
  if (Elem->isDependentType()) {
    Out.UnknownReason = "the element type depends on a template parameter";
    return;
  }
  Out.ElementBytes = static_cast<uint64_t>(Ctx.getTypeSizeInChars(Elem).getQuantity());

  if (Incomplete) {
    // `extern __shared__ T buf[]`: sized by the launch.
    Out.IsDynamic = VD->hasExternalStorage();
    if (!Out.IsDynamic)
      Out.UnknownReason = "the array has no bound";
    else
      Out.UnknownReason = "dynamic shared memory is sized at launch";
    return;
  }
  if (!Out.UnknownReason.empty())
    return;
  if (T->isDependentType()) {
    Out.UnknownReason = "the type depends on a template parameter";
    return;
  }
  Out.Bytes = static_cast<uint64_t>(Ctx.getTypeSizeInChars(T).getQuantity());
}

} // namespace matchers
} // namespace tilefit
