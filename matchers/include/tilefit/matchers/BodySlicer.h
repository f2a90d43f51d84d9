//===- BodySlicer.h - Instantiate only what can reach shared memory -*- C++
//-*-===//
//
// Most of a CuTe or CUTLASS kernel's parse goes into instantiating its body:
// deducing the types of register fragments and views that no shared-memory
// figure depends on. Before Sema instantiates anything at the end of the unit,
// the slicer decides what can reach shared memory; then, as Sema begins the
// first instantiation of each device function template, it replaces in the
// template's body (the pattern every instantiation is made from) the
// statements that cannot change a figure with empty statements, so that Clang
// never instantiates them. Templates never instantiated are left alone.
//
// A statement is kept when it declares or names a `__shared__` variable;
// calls or names a function that can reach one (resolved, or for a call Clang
// resolves only when instantiating, any function of that name: every overload
// and every function ADL could find); default-constructs an object that may
// be of a class whose default constructor reaches one (CUB's block
// primitives), or uses such an object; launches a kernel; allocates Tensor
// Memory; returns; declares a per-thread array or calls a function that does;
// is a `using` or a `static_assert` on constants; names a parameter that may
// receive a `__shared__` variable as an argument, or that one is passed on to
// (whether a parameter is used decides whether such an argument counts;
// ArgumentFlow.h, for each specialization through the calls Clang resolved in
// the code built before it), or a parameter of a function whose register view
// stays exact only so; or declares a local a kept statement uses. A template
// is sliced as its first specialization is instantiated, and sliced again
// where a later one's parameters receive more.
// Control statements around a kept statement are kept with their conditions.
//
// Nothing is sliced where the closure cannot be trusted: a constructor with
// arguments, a destructor or a conversion that can reach shared memory (Clang
// calls them where no name is written), a field initializer that names one,
// or an error Clang reported before instantiating. An operator that can reach
// is called where its symbol is written: a statement with an operator on
// dependent operands counts as naming it (and, for a comparison, C++20's
// rewritten candidates), as does `->` on a dependent base, a range `for`
// (begin, end and the iterator's operators) and a call of an implicit
// operator (its members' operators of the same name). A function
// holding a lambda that reaches is instantiated whole. After instantiation,
// BodySlicer::sound checks the one thing the spelling of a template cannot
// show: a sliced template instantiated with a type that leads to such a
// default constructor or lambda; the unit is then parsed again whole, as it is
// when Clang reports an error while instantiating sliced templates, and as it
// is where the model finds a parameter unused whose uses slicing left out
// (droppedUses: a call that passes it shared memory was built after the
// callee).
//
// What slicing costs: the per-thread arrays of locals whose types are deduced
// (CuTe's fragments), and of the functions such statements call, are not
// counted; the register view says so (FunctionFacts::UninstantiatedStatements).
// Calls that resolve to functions declaring arrays are kept: plain kernels'
// register views stay exact.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MATCHERS_BODYSLICER_H
#define TILEFIT_MATCHERS_BODYSLICER_H

#include "tilefit/model/Facts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <memory>

#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace tilefit {
namespace matchers {

class ArgumentFlow;
struct Names;
namespace slicing {
struct UnitClosure;
} // namespace slicing

/// Functions closed over calls: those that do something, and those that call
/// one that does (resolved, or by name where Clang resolves the call only when
/// instantiating).
struct Closure {
  /// Their templates' patterns, canonical, as keys (slicing::keyOf: read
  /// from a precompiled header, by ID).
  llvm::DenseSet<uint64_t> Functions;
  /// Their names, each with the numbers of arguments a call of one of them
  /// can have (an Arities mask, SliceNames.h).
  llvm::StringMap<uint32_t> ByName;
  /// Whether code that names \p N may call one of them.
  bool calls(const Names &N) const;
};

/// What can reach shared memory, as the slicer found it (the functions and
/// names of the closure), and what can hold per-thread arrays.
struct Reaching : Closure {
  /// Type declarations that lead to a class whose default constructor
  /// reaches: the class, and every class, alias or typedef whose written
  /// types or members name one. Keys, as Functions.
  llvm::DenseSet<uint64_t> Forming;
  /// Some class's default constructor reaches.
  bool DefaultConstructor = false;
  /// Some lambda reaches.
  bool Lambdas = false;
  /// Functions that declare per-thread arrays (their type written as an
  /// array, or a class known to hold one), and those that call them: calls
  /// to them are kept, so that the register view stays exact.
  Closure Arrays;
  /// The same with locals of deduced or dependent types, which may hold
  /// arrays (CuTe's fragments): a call to one left out makes the register
  /// view unknown.
  Closure MaybeArrays;

  /// Whether code that names \p N may call a function that reaches, or names
  /// a type that leads to a reaching default constructor.
  bool calls(const Names &N) const;
  /// The same, or it default-constructs a class it cannot tell while one
  /// does.
  bool reaches(const Names &N) const;
};

class BodySlicer {
public:
  BodySlicer();
  ~BodySlicer();

  /// Decides what can reach shared memory over \p Scope (the declarations the
  /// unit's traversal visits, at any depth), for the device function templates
  /// among them: after the parse and before Sema's pending instantiations,
  /// and before an instantiation made while parsing (an explicit
  /// instantiation) with the declarations parsed so far, which are all its
  /// lookups see. Each call undoes the one before. \p HadErrors: Clang
  /// reported an error, and nothing is sliced.
  ///
  /// \p Recorded: what a parse that loaded the same precompiled prefix
  /// recorded of the prefix's declarations (\p Record of that parse; empty:
  /// none), which are then not read. \p Record: where such a record is
  /// wanted (null: none), set where one was made (this parse loaded a
  /// precompiled header, did not use \p Recorded, and its own code does not
  /// change what the header's names).
  void slice(clang::ASTContext &Ctx, llvm::ArrayRef<clang::Decl *> Scope,
             bool HadErrors, bool Relocatable, llvm::StringRef Recorded = "",
             std::string *Record = nullptr);

  /// Just before Sema instantiates \p FD (its definition, or as it begins any
  /// instantiation of it): slices the template \p FD is made from, if it is
  /// one of those slice() decided for and not sliced yet. A template is
  /// sliced when it is first instantiated: on CuTe and CUTLASS most of those
  /// a unit holds never are, and are then not sliced. (The inventory that
  /// decides still reads every template's body.)
  void beforeInstantiating(const clang::FunctionDecl *FD);

  /// Just after Sema instantiated \p FD's body: reads which of its callees'
  /// parameters may receive shared memory through it (ArgumentFlow.h).
  void afterInstantiating(const clang::FunctionDecl *FD);

  /// After instantiation: false when \p FD, instantiated from a sliced
  /// template, has a type among its template arguments (or its class's) that
  /// leads to a default constructor reaching shared memory. A statement left
  /// out may then have constructed it: the unit is to be parsed again whole.
  bool sound(const clang::FunctionDecl *FD) const;

  /// Whether \p FD, instantiated from a sliced template, lost uses of its
  /// parameter at \p Index: statements that named it were left out. The
  /// slicer keeps the uses of the parameters the calls built before a
  /// specialization pass shared memory to (ArgumentFlow.h), not of those a
  /// call built after it does; where the model finds such a parameter unused
  /// (SharedMemoryCollector.cpp), the unit is to be parsed again whole.
  bool droppedUses(const clang::FunctionDecl *FD, unsigned Index) const;
  /// For a function instantiated from a sliced template: the statements left
  /// uninstantiated that may hold per-thread arrays; 0 otherwise.
  unsigned uninstantiatedStatements(const clang::FunctionDecl *FD) const;

  /// What slicing did to the unit, for its facts: the templates sliced (those
  /// instantiated after a slice() that sliced), and their statements left out
  /// (the latest slicing's); none where the last slice() sliced nothing.
  const BodySlicing &summary() const { return Summary; }

private:
  /// uninstantiatedStatements, or -1 for a function not instantiated from a
  /// sliced template.
  int uninstantiatedCount(const clang::FunctionDecl *FD) const;

  /// Summary's counts, from DroppedFrom.
  void summarize();

  llvm::DenseMap<const clang::FunctionDecl *, unsigned> Sliced;
  /// The templates sliced, with the statements their latest slicing left out.
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> DroppedFrom;
  /// The templates sliced, with the parameters the statements they left out
  /// named (a Positions mask, SliceNames.h), over every slicing.
  llvm::DenseMap<const clang::FunctionDecl *, uint64_t> DroppedParams;
  /// What the last slice() decided (null where it sliced nothing; without
  /// its functions' names), and the templates it decided for that are not
  /// sliced yet: their closure nodes, each with the declaration with its body.
  std::unique_ptr<slicing::UnitClosure> Unit;
  /// (Keys, slicing::keyOf; the declaration is null for one a record held.)
  llvm::DenseMap<uint64_t, clang::FunctionDecl *> Unsliced;
  clang::ASTContext *Ctx = nullptr;
  bool Relocatable = false;
  /// Where a statement was replaced, and by what it was, per template (its
  /// closure node).
  llvm::DenseMap<const clang::FunctionDecl *,
                 std::vector<std::pair<clang::Stmt **, clang::Stmt *>>>
      Replaced;
  /// The templates sliced (closure nodes), each with the declaration with its
  /// body and the parameters whose uses it kept (a Positions mask).
  llvm::DenseMap<const clang::FunctionDecl *,
                 std::pair<clang::FunctionDecl *, uint64_t>>
      KeptWith;
  /// Which parameters may receive shared memory (ArgumentFlow.h).
  std::unique_ptr<ArgumentFlow> Flow;
  Reaching Reach;
  BodySlicing Summary;
};

} // namespace matchers
} // namespace tilefit

#endif
