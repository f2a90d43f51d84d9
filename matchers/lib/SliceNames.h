//===- SliceNames.h - What code names, for the body slicer ------*- C++ -*-===//
//
// The body slicer's view of a stretch of code (BodySlicer.h): whether it names
// a `__shared__` variable, the functions it calls or names (resolved, or by
// name where Clang resolves the call only when instantiating), the types it
// default-constructs or mentions, the locals it declares and uses. The
// closure (SliceClosure.h) reads it for whole functions, the statement slicer
// (FunctionSlicer.h) for each statement; both key functions and types the way
// the helpers here do.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_SLICENAMES_H
#define TILEFIT_MATCHERS_SLICENAMES_H

#include "clang/AST/DeclarationName.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>

#include <string>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace tilefit {
namespace matchers {

/// Parameter positions, as a mask: bit N for the parameter at index N (a
/// function parameter pack's bit standing for every parameter it expands to),
/// the last bit for 63 or more.
using Positions = uint64_t;
constexpr Positions AnyPosition = ~Positions(0);
/// The position \p Index, or \p Index and every one after it (\p AndAfter).
inline Positions positionOf(unsigned Index, bool AndAfter = false) {
  const Positions At = Positions(1) << (Index < 63 ? Index : 63);
  return AndAfter ? ~(At - 1) : At;
}

/// What one stretch of code names and does, seen through everything Clang
/// keeps of it: expressions, types written (decltype, sizeof), lambda bodies.
struct Names {
  /// Declares or names a `__shared__` variable, launches a kernel, allocates
  /// Tensor Memory.
  bool Direct = false;
  /// The functions it calls or names, resolved (their closure nodes).
  llvm::SmallPtrSet<const clang::FunctionDecl *, 8> Calls;
  /// The names it calls unresolved: dependent names, ADL, members of
  /// dependent types, operators on dependent operands. Any function of the
  /// name that accepts the call's number of arguments may be the one: each
  /// name with the numbers a call of it here has (an Arities mask; every one
  /// where the name is not called, or a pack is expanded into the call).
  llvm::StringMap<uint32_t> Unresolved;
  /// Default-constructs an object whose class it cannot tell from the
  /// spelling of its type (decltype, `{}` passed to an unresolved call): any
  /// class's default constructor may run.
  bool DefaultConstructsUnknown = false;
  /// The type declarations the types it default-constructs name.
  llvm::SmallPtrSet<const clang::Decl *, 4> DefaultConstructed;
  /// The local declarations it refers to (variables, bindings' decompositions,
  /// types).
  llvm::SmallPtrSet<const clang::Decl *, 8> Uses;
  /// The declarations it makes.
  llvm::SmallPtrSet<const clang::Decl *, 4> Declares;
  /// The type declarations its written types name (normalizedType): a class
  /// template whose default constructor reaches shared memory may be among
  /// them, or one that leads to it.
  llvm::SmallPtrSet<const clang::Decl *, 8> Mentions;
  /// The parameters of the function scanned that it names (lambdas'
  /// parameters are not among them): a statement naming one that may receive
  /// a `__shared__` variable is kept (ArgumentFlow.h).
  Positions ParamsNamed = 0;
  /// Kept where it is written, without reaching shared memory itself: a
  /// launch (device-side launches need -rdc), an allocator call by name.
  bool KeptHere = false;
  bool Returns = false;
  bool HasLabel = false;
  bool UsingDecl = false;        ///< using, using namespace, namespace alias
  bool StaticAssert = false;     ///< a static_assert
  bool NamesNonConstant = false; ///< a local that is not constexpr
  bool ArrayLocal = false;       ///< declares a per-thread array
  /// Declares locals of deduced or dependent type (they may hold arrays).
  unsigned MaybeArrayLocals = 0;
};

namespace slicing {

/// A declaration as the closure holds it: one read from a precompiled header
/// by its ID there (odd), which a later parse loading the same header gives
/// it again, so that a record of the header's closure (SliceClosure.h) can
/// name it without reading it; any other by its address (even).
using DeclKey = uint64_t;
DeclKey keyOf(const clang::Decl *D);
/// The declaration \p Key stands for, read from the precompiled header where
/// it is one of its IDs (null where none loaded has it).
clang::Decl *declOf(clang::ASTContext &Ctx, DeclKey Key);

/// Numbers of arguments, as a mask: bit N for N arguments, the last bit for
/// 31 or more. A call by name matches a function whose mask shares a bit.
using Arities = uint32_t;
constexpr Arities AnyArity = ~Arities(0);
/// The call of \p N arguments.
Arities arityOf(unsigned N);
/// The numbers of arguments a call of \p FD by its name can have (a member's
/// object is not among them); every number for a constructor, a conversion
/// or a function with an explicit object parameter.
Arities aritiesOf(const clang::FunctionDecl *FD);

/// The parameters of \p FD (their positions in its declaration) that a call
/// passing an argument at the positions \p At may give it to: a parameter
/// pack takes every position from its own on, and so may the parameters
/// after it; every one for a function with an explicit object parameter.
Positions parametersAt(const clang::FunctionDecl *FD, Positions At);

/// Device code can call it: a device or host-device function, not a kernel.
bool deviceCallable(const clang::FunctionDecl *FD);

/// The declaration whose body instantiations of \p FD are made from (itself
/// for a plain function), canonical: the closure's node for \p FD.
const clang::FunctionDecl *nodeOf(const clang::FunctionDecl *FD);

/// \p N spelled as the closure's sets of names (Names::Unresolved,
/// Closure::ByName) hold it.
std::string nameOf(const clang::DeclarationName &N);

/// The declaration that stands for a type declaration in the closure over
/// types: a class template's pattern for the template, its specializations
/// and partial specializations; an alias template's alias; canonical.
const clang::Decl *normalizedType(const clang::Decl *D);

/// Adds the type declarations \p TL, a type as written, names to \p Out.
void typeMentions(clang::TypeLoc TL,
                  llvm::SmallPtrSetImpl<const clang::Decl *> &Out);

/// What \p Code (a statement, or a declaration such as a whole function)
/// names, into \p Out; what lambda bodies in it call goes to \p Lambdas (a
/// lambda is called where the closure cannot see: its call operator has no
/// name), what they refer to, to \p Out. \p SharedNames: the unit's
/// `__shared__` variables' names; \p SharedAliases: variables that stand for
/// one; \p Fn: the function \p Code is in (null: none), whose parameters and
/// locals count as such; \p Relocatable: a kernel launch reaches (-rdc).
void scanNames(const clang::ASTContext &Ctx,
               const llvm::StringSet<> &SharedNames,
               const llvm::DenseSet<DeclKey> &SharedAliases,
               const clang::FunctionDecl *Fn,
               llvm::PointerUnion<clang::Decl *, clang::Stmt *> Code,
               Names &Out, Names &Lambdas, bool Relocatable);

} // namespace slicing
} // namespace matchers
} // namespace tilefit

#endif
