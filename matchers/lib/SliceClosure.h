//===- SliceClosure.h - What can reach shared memory ------------*- C++ -*-===//
//
// Steps 1 and 2 of body slicing (BodySlicer.cpp): the inventory of the unit
// (its `__shared__` variables' names, its device functions and kernels with
// bodies, what each names) and the closures over it: the functions, names and
// type declarations that can reach shared memory, and the functions that can
// hold per-thread arrays (Reaching, BodySlicer.h). Step 3, each template's
// statements (FunctionSlicer.h), reads both.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SLICECLOSURE_H
#define TILEFIT_MATCHERS_SLICECLOSURE_H

#include "SliceNames.h"

#include "tilefit/matchers/BodySlicer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {
namespace slicing {

/// Whether functions the slicer's inventory does not hold (the CUDA runtime
/// headers', left out of it whether or not they are precompiled, so that a
/// parse slices alike either way) hold per-thread arrays: their bodies read
/// when a statement calls one, once each.
class OutsideArrays {
public:
  enum Kind { None = 0, Maybe = 1, Exact = 2 };
  /// \p Inside: the inventory's functions (their closure nodes' keys).
  OutsideArrays(const clang::ASTContext &Ctx, llvm::DenseSet<DeclKey> Inside)
      : Ctx(Ctx), Inside(std::move(Inside)) {}

  /// The most any of \p N's resolved callees outside the inventory holds.
  Kind of(const Names &N);

  Kind kind(const clang::FunctionDecl *FD, unsigned Depth);

private:
  class Scan;

  const clang::ASTContext &Ctx;
  const llvm::DenseSet<DeclKey> Inside;
  llvm::DenseMap<const clang::FunctionDecl *, Kind> Known;
};

/// What the closure reads of a Names (what a function or its lambdas name),
/// declarations as keys and names as indices into UnitClosure::NameTable, so
/// that it can be recorded with a precompiled header and read back without
/// reading the declarations.
struct ClosureNames {
  bool Direct = false;
  bool DefaultConstructsUnknown = false;
  bool ArrayLocal = false;
  bool MaybeArrayLocals = false;
  /// OutsideArrays::of for its calls.
  uint8_t Outside = OutsideArrays::None;
  std::vector<DeclKey> Calls;
  /// Each name called unresolved, with its Arities.
  std::vector<std::pair<uint32_t, Arities>> Unresolved;
  std::vector<DeclKey> DefaultConstructed;
  std::vector<DeclKey> Mentions;
};

/// One function of the inventory, as the closure reads it.
struct ClosureNode {
  /// The function (null where read from a record), and its key.
  const clang::FunctionDecl *Fn = nullptr;
  DeclKey FnKey = 0;
  /// Its closure node's key (nodeOf).
  DeclKey Node = 0;
  /// For a default constructor: its class (normalizedType).
  DeclKey DefaultConstructorOf = 0;
  /// Its name (NameTable) and the numbers of arguments it accepts.
  uint32_t Name = 0;
  Arities Accepts = 0;
  bool DeviceCallable = false;
  /// A constructor with arguments, a destructor or a conversion: Clang calls
  /// it where no name is written.
  bool CalledUnnamed = false;
  /// sliceable(): sliced as it is first instantiated.
  bool Sliceable = false;
  ClosureNames N, Lambdas;
};

/// One function of the inventory and what it names: its own code, and the
/// lambdas it holds.
struct FunctionNode {
  clang::FunctionDecl *Fn;
  Names N, Lambdas;
};

/// A class's default member initializer, as the closure reads it.
struct InitializerNode {
  DeclKey Class = 0;
  ClosureNames N;
};

/// What the closure reads of a unit: its functions, field initializers,
/// types and `__shared__` variables, free of the AST. A precompiled header's
/// part of it is recorded (InventoryRecord) and merged with a later parse's
/// own.
struct ClosureInput {
  std::vector<ClosureNode> Nodes;
  std::vector<InitializerNode> Initializers;
  /// For each type declaration, those that lead to it.
  std::vector<std::pair<DeclKey, std::vector<DeclKey>>> LedToBy;
  /// Names of `__shared__` variables, as NameTable indices.
  std::vector<uint32_t> SharedNames;
  /// Variables outside functions that stand for a `__shared__` one.
  std::vector<DeclKey> SharedAliases;
  /// Functions that are not templates whose calls pass shared memory or
  /// parameters on (ArgumentFlow reads them).
  std::vector<DeclKey> Flowing;
  /// Why nothing can be sliced, already (a field initializer naming a
  /// `__shared__` variable), or empty.
  Reason Fallback;
};

/// What steps 1 and 2 leave for step 3, beyond Reaching.
struct UnitClosure {
  /// The names of the unit's `__shared__` variables.
  llvm::StringSet<> SharedNames;
  /// Variables outside functions whose initializers name a `__shared__`
  /// variable: they stand for it.
  llvm::DenseSet<DeclKey> SharedAliases;
  /// The names the closure's nodes use, by index.
  std::vector<std::string> NameTable;
  llvm::StringMap<uint32_t> NameIndex;
  /// Every device function and kernel with a body (patterns, not
  /// instantiations) this parse read, and what it names.
  std::vector<FunctionNode> Functions;
  /// Every one of the closure, read or recorded.
  std::vector<ClosureNode> Nodes;
  /// Functions that are not templates whose calls ArgumentFlow reads.
  std::vector<const clang::FunctionDecl *> Flowing;
  /// The per-thread arrays of functions outside the inventory.
  std::optional<OutsideArrays> Outside;
  /// Functions that hold a lambda that reaches: instantiated whole (keys).
  llvm::DenseSet<DeclKey> Whole;
  /// The precompiled header's part came from its record.
  bool FromRecord = false;

  uint32_t nameIndex(llvm::StringRef Name);
};

/// The closure's part a precompiled header holds, recorded by the first parse
/// that loads it and read back by the next ones (InventoryRecord.cpp): its
/// declarations' keys are their IDs in that header.
struct InventoryRecord {
  bool Relocatable = false;
  std::vector<std::string> NameTable;
  ClosureInput Input;
  /// Every name the header's code calls or names unresolved: a later
  /// parse's own `__shared__` variable of such a name may change what the
  /// header's code names directly, and the record is then not used.
  llvm::StringSet<> UnresolvedNames;

  /// The record as bytes, and read back (false where \p Bytes is not one).
  std::string serialize() const;
  static bool deserialize(llvm::StringRef Bytes, InventoryRecord &Out);
};

/// Steps 1 and 2 over \p Scope (the declarations the unit's traversal
/// visits): the inventory into \p Unit, what can reach shared memory and hold
/// per-thread arrays into \p Reach. Returns why nothing can be sliced, or
/// none (\p Reach then holds what the closure had found when it stopped).
/// \p Recorded: the precompiled header's part, recorded before, whose
/// declarations are then not read (null: none, or not usable). \p Record:
/// where a record of that part is wanted (null: none), made where
/// \p Recorded was not used.
Reason closeOver(clang::ASTContext &Ctx, llvm::ArrayRef<clang::Decl *> Scope,
                 bool Relocatable, Reaching &Reach, UnitClosure &Unit,
                 const InventoryRecord *Recorded = nullptr,
                 InventoryRecord *Record = nullptr);

} // namespace slicing
} // namespace matchers
} // namespace tilefit

#endif
