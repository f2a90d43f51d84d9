//===- Facts.h --------------------------------------------------*- C++ -*-===//
//
// What the front end found in one translation unit.
//
// The records the matchers fill while Clang's AST is alive. They hold no Clang
// types: every location is already a file/line/column, every type already a
// layout (shape, element size, alignment). The model decides everything else
// from them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_FACTS_H
#define TILEFIT_MODEL_FACTS_H

#include "tilefit/model/Reason.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilefit {

/// A position in a source file, 1-based as in clang's diagnostics. Line 0: no
/// position.
struct SourcePos {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  bool valid() const { return Line != 0; }
};

/// Where a literal is written: what a quick fix replaces (Length bytes from
/// Loc, on one line).
struct WrittenLiteral {
  SourcePos Loc;
  unsigned Length = 0;
  bool valid() const { return Loc.valid() && Length > 0; }
};

/// Where a quick fix may rewrite a `__shared__` declaration as `extern
/// __shared__`: set only for a kernel's own array declared alone in its
/// statement, on one line, outside macros, without initializer, qualifiers or
/// an alignment above 16 bytes.
struct WrittenDeclaration {
  /// From its first token (`__shared__`) to the end of its declarator (`;`
  /// left out).
  WrittenLiteral Span;
  std::string Indent;  ///< The whitespace its line begins with.
  std::string Element; ///< The element type as written: `float`, `T`.
  std::string Extents; ///< Its bounds as written: `[TILE][TILE + 1]`.
  bool valid() const {
    return Span.valid() && !Element.empty() && !Extents.empty();
  }
};

/// Where a quick fix may edit a `<<<>>>` launch to request dynamic shared
/// memory: set only for a launch that is a statement of its own in a block,
/// outside templates and macros, whose bytes argument is not written or is a
/// literal `0`.
struct WrittenLaunch {
  /// The `0` written as the bytes argument (replaced), or, when none is
  /// written, the position of `>>>` with Length 0 (", N" inserted there).
  WrittenLiteral Bytes;
  SourcePos Statement; ///< The launch statement's first character.
  std::string Indent;  ///< The whitespace its line begins with.
  std::string Kernel;  ///< The kernel as the launch writes it: `k<float>`.
  bool valid() const { return Statement.valid() && !Kernel.empty(); }
};

/// The last component of \p Path (`/src/gemm.cu`: `gemm.cu`), for messages.
inline std::string fileNameOf(const std::string &Path) {
  const size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

/// Where a `__shared__` variable is declared, for the emission order
/// (Layout.cpp).
struct EmissionFacts {
  /// Enclosing namespaces (named, anonymous or inline), outermost first, each
  /// as the ordinal of the namespace's first opening in the translation unit.
  /// Empty for the global namespace and for every function-local variable (they
  /// are ordered with their function).
  std::vector<unsigned> Namespaces;
  /// Position of the declaration in the unit (the template's own for an
  /// instantiation).
  uint64_t DeclOrder = 0;
};

/// One step of the walk that NVVM's front end makes over the unit. Index refers
/// to TranslationUnitFacts::Vars for Variable, to EmissionProgram::Functions
/// otherwise.
struct EmissionEvent {
  enum class Kind {
    Variable,   ///< A global-namespace declaration, or a first reference to a
                /// < variable template.
    Function,   ///< A function definition completes (top level: a non-template
                /// < definition).
    Instantiate ///< A reference to a template specialization (a call, a launch,
                /// < an explicit instantiation): listed for instantiation, or
                /// < instantiated right there.
  };
  Kind K = Kind::Variable;
  size_t Index = 0;
};

/// A function as NVVM's front end completes it.
struct EmissionFunction {
  std::string Name; ///< For messages and tests.
  bool IsTemplateInstance =
      false; ///< Completed when instantiated, at the end of the unit.
  bool ReturnsAuto = false; ///< A template instantiated where it is first used.
  bool Nested = false; ///< A lambda's call operator or a local class's member.
  bool ContainsLambda =
      false; ///< Its body holds a lambda expression at any depth.
  bool InsideLambda = false; ///< Nested inside a lambda's body.
  std::vector<EmissionEvent>
      Body; ///< In source order: references and nested functions.
  std::vector<size_t>
      Statics; ///< Its own `__shared__` statics, block scopes in pre-order.
};

/// The unit as NVVM's front end walks it: enough to derive the order of its
/// `.shared` variables in the PTX module.
struct EmissionProgram {
  std::vector<EmissionFunction> Functions;
  std::vector<EmissionEvent> TopLevel; ///< In source order.
};

/// One variable declaration, evaluated: a `__shared__` variable, and with the
/// same fields a `__constant__` variable (TranslationUnitFacts::ConstantVars)
/// or a per-thread local array (TranslationUnitFacts::LocalArrays; Emission,
/// IsDynamic and ReferencedOutOfLine unused).
struct SharedVar {
  std::string Name;     ///< As written: `tile`.
  std::string Function; ///< Enclosing function with template arguments; "" at
                        /// < namespace scope.
  std::string
      QualifiedName; ///< `ns::tile`, or `f<64>::tile` for a function-local one.
  SourcePos
      Loc; ///< The declaration (the template's own line for instantiations).
  std::string Type;        ///< After template substitution: `float[3][64][17]`.
  std::string ElementType; ///< Innermost non-array type, sugar kept: `__half`.
  std::string
      CanonicalElementType; ///< The same without sugar: `struct __half`.
  std::vector<uint64_t>
      Shape; ///< Array extents, outermost first; empty for a scalar or object.
  /// For each extent, the name it is written with when it is exactly one name
  /// that could be changed (a template parameter `STAGES`, a constant `kTile`,
  /// an enumerator, a macro); "" otherwise. Used to say what value would fit.
  std::vector<std::string> ExtentNames;
  /// For each extent, where the integer literal that decides it is written,
  /// when the edit is mechanical: a constant's initializer (`constexpr int
  /// kTile = 64;`), a macro's body (`#define TILE 64`), an explicit
  /// instantiation's template argument (`template __global__ void k<4>(...)`);
  /// invalid otherwise. What a "what would fit" quick fix replaces.
  std::vector<WrittenLiteral> ExtentLiterals;
  /// The declaration as written, where making it `extern __shared__` is a
  /// mechanical edit (WrittenDeclaration).
  WrittenDeclaration Written;
  uint64_t ElementBytes = 0; ///< sizeof the element type.
  uint64_t Align = 1; ///< Alignment in bytes, raised by alignas/__align__ on
                      /// < type or variable.
  std::optional<uint64_t> Bytes; ///< Size in bytes; unset when it cannot be
                                 /// < known (see UnknownReason).
  Reason UnknownReason;          ///< Why Bytes is unknown.
  bool IsDynamic =
      false; ///< `extern __shared__ T x[]`: its size is given at launch.
  /// Referenced by a function NVVM keeps out of line (`__noinline__`,
  /// recursive): the variable is then emitted at module scope even when only
  /// one kernel reaches it. Set by the call-graph stage (model/CallGraph.h).
  bool ReferencedOutOfLine = false;
  /// Declared in a kernel's own body: no other kernel can reach it. (A
  /// namespace-scope variable or a device function's static may be shared with
  /// other kernels.)
  bool KernelLocal = false;
  EmissionFacts Emission;
};

/// A launch of a kernel found in host code: `k<<<grid, block, bytes,
/// stream>>>(...)`, `cudaLaunchKernel`, `cudaLaunchCooperativeKernel`,
/// `cudaLaunchKernelEx[C]`.
struct LaunchSite {
  SourcePos Loc;
  std::string Form; ///< `<<<>>>`, `cudaLaunchKernel`, ...
  /// Dynamic shared memory requested, when it is a compile-time constant; 0
  /// when not given.
  std::optional<uint64_t> DynamicBytes;
  Reason UnknownReason;                 ///< Why DynamicBytes is unknown.
  std::optional<uint64_t> BlockThreads; ///< Threads per block, when constant.
  /// The block's shape (x, y, z) when constant; empty otherwise.
  std::vector<uint64_t> BlockShape;
  /// Who gave DynamicBytes when tilefit could not compute it: "comment" (a
  /// `// tilefit-dynamic-smem: N` comment at the launch), "configuration"
  /// (DynamicSharedMemory); "" when computed.
  std::string StatedBy;
  /// The launch as written, where a quick fix can add dynamic shared memory
  /// to it (WrittenLaunch).
  WrittenLaunch Written;
};

/// A `cudaFuncSetAttribute(kernel, attribute, value)` call for the kernel.
struct AttributeCall {
  enum class Kind {
    MaxDynamicSharedMemorySize, ///< The opt-in: dynamic shared memory above 48
                                /// < KiB.
    PreferredSharedMemoryCarveout ///< Percentage of the unified L1/shared
                                  /// < memory for shared.
  };
  Kind Attribute = Kind::MaxDynamicSharedMemorySize;
  SourcePos Loc;
  std::optional<int64_t> Value; ///< When a compile-time constant.
  Reason UnknownReason;
};

/// A request for Tensor Memory columns (sm_100 family): a `tcgen05.alloc` in
/// inline PTX, or a call tilefit knows allocates
/// (`cute::TMEM::Allocator1Sm::allocate`, `cute::TMEM::Allocator2Sm::allocate`,
/// `cuda::ptx::tcgen05_alloc`).
struct TmemAllocation {
  SourcePos Loc; ///< The asm statement or the call.
  std::string
      Form; ///< `tcgen05.alloc`, `cute::TMEM::Allocator1Sm::allocate`, ...
  std::string Function; ///< The function it is in, with template arguments.
  unsigned CtaGroup =
      1; ///< `.cta_group::2`: one allocation on each of two SMs.
  std::optional<uint64_t>
      Columns;          ///< When the count is a compile-time constant.
  Reason UnknownReason; ///< Why Columns is unknown.
};

/// `__launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor)`.
struct LaunchBounds {
  std::optional<uint64_t> MaxThreads;
  std::optional<uint64_t> MinBlocks;
  SourcePos Loc;
};

/// What host code does with one kernel, found by a host-side parse: launches
/// and attribute calls the device-side parse cannot see (under `#ifndef
/// __CUDA_ARCH__`).
struct HostKernelCalls {
  std::string Mangled; ///< The kernel, by the name ptxas prints.
  std::vector<LaunchSite> Launches;
  std::vector<AttributeCall> Attributes;
};

/// Why a unit's error may have changed a kernel's figures
/// (matchers/ParseErrors.h).
struct ErrorTouch {
  enum class Kind {
    InItsCode,   ///< The error is in code the kernel uses (its body, a function
                 /// < or a
                 /// < `__shared__` variable it reaches, that variable's type).
    UnbuiltCode, ///< Code it uses holds what Clang could not build after an
                 /// < error.
    NoBody ///< A specialization whose body Clang did not instantiate (after an
           /// < error).
  };
  Kind How = Kind::InItsCode;
  size_t Diagnostic =
      0; ///< The error: an index into TranslationUnitFacts::Diagnostics.
};

/// An integer expression over a thread's index, the block's shape, loop
/// counters and constants: what a shared-memory access's subscripts, the
/// conditions around it and its loops compute, for the bank analysis
/// (model/Banks.h). Each node's operands are earlier nodes; the last node is
/// the root. Empty: no expression.
struct IndexExpr {
  enum class Op {
    Const,     ///< Value.
    ThreadIdx, ///< threadIdx.x, .y, .z for Value 0, 1, 2.
    BlockDim,  ///< blockDim.x, .y, .z for Value 0, 1, 2.
    Counter,   ///< The counter of FunctionFacts::Loops[Value].
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LAnd,
    LOr,
    LNot,
    Neg,
    Not,
    Select ///< A ? B : C.
  };
  struct Node {
    Op O = Op::Const;
    int64_t Value = 0;
    int A = -1, B = -1, C = -1; ///< Operands: indices of earlier nodes.
  };
  std::vector<Node> Nodes;
  bool empty() const { return Nodes.empty(); }
};

/// A loop whose counter an access uses: `for (int i = Init; Condition;
/// i = Next)`, Condition and Next over the counter itself (a Counter node),
/// Init over the block's shape, outer counters and constants.
struct AccessLoop {
  SourcePos Loc;
  std::string Counter; ///< Its name, for messages.
  IndexExpr Init, Condition, Next;
};

/// A load or store of a `__shared__` variable whose address tilefit can
/// evaluate for every thread of a block: the bank analysis's input
/// (model/Banks.h). Its byte offset in the variable is the sum of each
/// subscript times its dimension's stride (from the variable's shape) and
/// Offset.
struct SharedAccess {
  SourcePos Loc;    ///< The access (its base's first character).
  std::string Text; ///< As written: `tile[threadIdx.x][0]`.
  size_t Var = 0;   ///< Index into TranslationUnitFacts::Vars.
  bool Store = false;
  unsigned Width = 0; ///< Bytes moved per thread: 4 for float, 16 for float4.
  std::vector<IndexExpr> Subscripts; ///< Outermost first; at most the rank.
  IndexExpr Offset;                  ///< Bytes; empty: 0.
  /// Conditions around the access: a thread takes part where each is non-zero.
  std::vector<IndexExpr> Guards;
  /// Conditions around it tilefit cannot evaluate that do not depend on the
  /// thread's index: taken to hold for the whole block, and said so.
  std::vector<std::string> Assumed;
  /// The loops around it whose counters it uses (indices into
  /// FunctionFacts::Loops), outermost first.
  std::vector<size_t> Loops;
  bool InLoop = false; ///< Inside any loop, counted or not.
  /// Set when its address is not a function of the thread's index, the
  /// block's shape, loop counters and constants: it is not analysed.
  Reason NotAnalysable;
};

/// One function some kernel reaches, as its definition refers to others in code
/// that runs (branches whose condition folds to a constant pruned, as the
/// optimizer prunes them): the raw call graph, in
/// TranslationUnitFacts::Functions. The matchers record it; the model's
/// call-graph stage (model/CallGraph.h) decides from it what each kernel
/// reaches, which variables NVVM keeps at module scope, and which per-thread
/// arrays are live at once.
struct FunctionFacts {
  std::string Name;      ///< With template arguments, for messages and tests.
  bool NoInline = false; ///< `__noinline__`: NVVM keeps it out of line.
  /// The functions with a definition it calls or takes the address of (indices
  /// into TranslationUnitFacts::Functions), in source order, each once.
  std::vector<size_t> Callees;
  /// The `__shared__` variables it names (indices into
  /// TranslationUnitFacts::Vars), in source order, each once; a variable passed
  /// only to a parameter its callee never uses is not named (NVVM inlines the
  /// call and the use is gone).
  std::vector<size_t> SharedRefs;
  /// The `__shared__` variables declared in its body (indices into Vars),
  /// referenced or not.
  std::vector<size_t> SharedDecls;
  /// Its per-thread arrays and array-holding objects (indices into
  /// TranslationUnitFacts::LocalArrays), in source order.
  std::vector<size_t> LocalArrays;
  /// The block scopes of its body, in pre-order: blocks, and the statements
  /// whose declarations end with them (for, range-based for, if, while,
  /// switch). ScopeParents[I] is the scope enclosing scope I; scope 0 is the
  /// function as a whole (its own parent). Empty: one scope holds everything.
  std::vector<size_t> ScopeParents;
  /// For each of LocalArrays, the scope that declares it: an array lives until
  /// its scope ends, so arrays of sibling scopes are never live at once.
  std::vector<size_t> LocalArrayScopes;
  /// Each scope a callee is called in: (index into
  /// TranslationUnitFacts::Functions, scope), each pair once, in source order.
  /// A callee without an entry is taken as called in scope 0.
  std::vector<std::pair<size_t, size_t>> CallScopes;
  /// Its Tensor Memory requests.
  std::vector<TmemAllocation> Tmem;
  /// Instantiated from a template whose body the front end sliced
  /// (BodySlicing): the statements left uninstantiated that may hold
  /// per-thread arrays (locals of deduced types, CuTe's register fragments, or
  /// calls to functions that declare such), which LocalArrays then lacks; 0
  /// for a function instantiated whole.
  unsigned UninstantiatedStatements = 0;
  /// Its loads and stores of `__shared__` variables, in source order, and
  /// the loops their addresses count with.
  std::vector<SharedAccess> Accesses;
  std::vector<AccessLoop> Loops;
};

/// What the front end's body slicing did to a unit (matchers/BodySlicer.h):
/// the statements of device function templates that cannot change a
/// shared-memory figure are not instantiated.
struct BodySlicing {
  bool Enabled = false;    ///< Asked for (tilefit's default).
  /// Templates whose bodies were sliced: those instantiated in this parse
  /// after the slicer decided (a precompiled header's own instantiations are
  /// not among them).
  unsigned Functions = 0;
  unsigned Statements = 0; ///< Statements left uninstantiated in them.
  /// Why nothing was sliced although asked for (or the unit was parsed again
  /// whole); none otherwise.
  Reason Fallback;
  /// Where the parse loaded a precompiled prefix or preamble: "read" when the
  /// slicer took what it needs of the header's declarations from the record
  /// an earlier parse made of them (instead of reading them), "made" when
  /// this parse made that record; empty otherwise.
  std::string HeaderRecord;
};

/// What a kernel's `static_assert`s require of one of its names (a template
/// parameter, a constant), the other names at the instantiation's values:
/// `static_assert(BM % 32 == 0)` is MultipleOf 32, `static_assert(256 % BM ==
/// 0)` DivisorOf 256, `static_assert(BM >= 16)` AtLeast 16, `static_assert((BM
/// & (BM - 1)) == 0)` PowerOfTwo, `static_assert(BM % WM == 0)` with WM = 64
/// MultipleOf 64 (and, for WM, DivisorOf BM's value).
struct ExtentConstraint {
  enum class Kind { MultipleOf, DivisorOf, AtLeast, AtMost, PowerOfTwo };
  std::string Name;
  Kind Is = Kind::MultipleOf;
  uint64_t Value = 0;
};

/// One kernel (one instantiation, for templates) with what it reaches.
struct KernelFacts {
  std::string
      Name; ///< Qualified, with template arguments: `ns::staged<64, 16, 3>`.
  std::string Mangled; ///< The Itanium name ptxas prints.
  /// Why Mangled may differ from the name ptxas prints (a part of nvcc's name
  /// tilefit does not derive); none when it is nvcc's.
  Reason NameDiffers;
  /// The name ptxas prints with -rdc where it differs from Mangled
  /// (`__nv_static_<module id>_` before a kernel of internal linkage); "".
  std::string RelocatableMangled;
  SourcePos Loc; ///< The kernel's name in its definition.
  std::optional<SourcePos>
      InstantiatedAt; ///< For template instantiations: where requested.
  /// Its definition in TranslationUnitFacts::Functions; unset for a
  /// specialization Clang did not instantiate (no body).
  std::optional<size_t> Function;
  // Reached, Unreferenced, LocalArrays and TmemAllocations are the call-graph
  // stage's (model/CallGraph.h), decided from Functions by analyzeUnit; the
  // matchers leave them empty and the result cache does not store them.
  /// Indices into TranslationUnitFacts::Vars of every `__shared__` variable
  /// (static or dynamic) the kernel and the functions it calls, directly or
  /// transitively, refer to; each once.
  std::vector<size_t> Reached;
  /// Indices of variables declared in functions the kernel reaches but never
  /// referred to by evaluated code: nvcc does not emit them, so they take no
  /// memory.
  std::vector<size_t> Unreferenced;
  /// Its launches in the translation unit's host code, in source order.
  std::vector<LaunchSite> Launches;
  /// cudaFuncSetAttribute calls for it, in source order.
  std::vector<AttributeCall> Attributes;
  std::optional<LaunchBounds> Bounds;
  /// Indices into TranslationUnitFacts::LocalArrays of the per-thread arrays
  /// declared in the kernel and the functions it reaches (each function once),
  /// in the order they are reached.
  std::vector<size_t> LocalArrays;
  /// Tensor Memory requests in the kernel and the functions it reaches, each
  /// site once.
  std::vector<TmemAllocation> TmemAllocations;
  /// Set when an error of the unit may have changed what the kernel reaches:
  /// its figures are then unknown.
  std::optional<ErrorTouch> Error;
  /// The kernel's own static_asserts on its names, for what-would-fit
  /// suggestions.
  std::vector<ExtentConstraint> Constraints;
};

enum class Severity { Note, Remark, Warning, Error };

/// A span of a message that names what a renderer may spell otherwise: a kernel
/// (which the text report and the editor shorten) or the finding's architecture
/// (which the editor merges into `sm_80 and sm_90`). Set by the check that
/// words the message (model/Messages.h, Words); renderers compose from them
/// and never search the words.
struct MessageSlot {
  enum class Kind { Kernel, Arch };
  Kind K = Kind::Kernel;
  size_t Offset = 0; ///< Into the message, bytes.
  size_t Length = 0;
};

/// One replacement: Length bytes at At (on one line; 0: an insertion) become
/// Text.
struct TextEdit {
  SourcePos At;
  unsigned Length = 0;
  std::string Text;
};

/// The edits that apply a note's suggestion, all together: a literal set to
/// what would fit, or a declaration made `extern __shared__` with its launches
/// asking for the bytes.
struct FixIt {
  std::string Title; ///< `set STAGES to 3`
  std::vector<TextEdit> Edits;
};

struct Note {
  std::string Message;
  SourcePos Loc;
  /// The edit that does what the note suggests, where it is mechanical; in the
  /// report, not in the facts.
  std::optional<FixIt> Fix;
  std::vector<MessageSlot>
      Slots; ///< In order, not overlapping; in the report, not in the facts.

  Note() = default;
  Note(std::string Message, SourcePos Loc, std::vector<MessageSlot> Slots = {})
      : Message(std::move(Message)), Loc(std::move(Loc)),
        Slots(std::move(Slots)) {}
};

/// A finding in clang's shape: a primary location, a message, the check, and
/// notes.
struct Diagnostic {
  Severity Level = Severity::Error;
  std::string Check;   ///< `tilefit-static-limit`; `clang-diagnostic-error` for
                       /// < parse errors.
  std::string Message; ///< Lowercase, no trailing period, concrete numbers.
  SourcePos Loc;
  std::string Arch; ///< The architecture the finding is about; "" if none.
  /// The translation unit whose analysis produced it ("" for tool-level
  /// messages): a finding in another file (a header) is shown only if that file
  /// passes --header-filter.
  std::string TranslationUnit;
  std::string Kernel; ///< The kernel the finding is about; "" if none.
  bool PromotedToError =
      false; ///< A warning made an error by --warnings-as-errors.
  /// The figures behind the finding (`static_smem_bytes`, `limit_bytes`, ...),
  /// for reports.
  std::vector<std::pair<std::string, uint64_t>> Figures;
  std::vector<Note> Notes;
  std::vector<MessageSlot>
      Slots; ///< In Message, in order; in the report, not in the facts.
};

/// A launch of a kernel template that Clang could not build because of an error
/// in it (an argument that names nothing, say): the specialization it launches
/// is not instantiated, so it is not among the unit's kernels.
struct LostLaunch {
  SourcePos Loc;
  std::string Callee; ///< As written: `gemm<128, 64>`, `kernels[i]`.
  /// Not lost to an error: a launch with dynamic shared memory whose kernel is
  /// not known statically (a function pointer chosen at run time), so that its
  /// bytes count for none.
  bool Unresolved = false;
  /// For an unresolved launch through a parameter of the function (a launch
  /// helper such as CUTLASS's ClusterLauncher::launch): that function's name.
  std::string Helper;
};

/// A construct nvcc accepts and Clang rejects, which the front end rewrote for
/// Clang in memory before parsing the unit again
/// (frontend/lib/SourceFixups.cpp). The figures are the rewritten unit's, which
/// are the original's.
struct SourceFixup {
  SourcePos
      Loc; ///< The construct (a variable's name, a launch, an asm string).
  std::string Rule; ///< `shared-constructor`, `attribute-position`,
                    /// < `device-launch`, ...
};

/// Everything the front end learnt from one translation unit parsed for one
/// architecture.
struct TranslationUnitFacts {
  std::string File;
  std::string Arch; ///< The target: `sm_100a`.
  std::string
      ParsedAs; ///< The architecture Clang parsed for (`sm_90` for `sm_100a`).
  bool Jit = false; ///< A PTX-only target, compiled by the driver at run time.
  std::optional<uint64_t>
      MaxRegisters; ///< The command's -maxrregcount, if any.
  bool RelocatableDeviceCode = false;
  bool Failed = false; ///< The unit could not be analysed; see Diagnostics.
  /// Clang reported errors: the facts are what it built despite them
  /// (KernelFacts::Error says which kernels they may have changed). Diagnostics
  /// holds the errors.
  bool Partial = false;
  /// An error stopped the parse (a missing #include, say): what comes after it,
  /// kernels included, was not parsed, and no template was instantiated.
  bool ParseStopped = false;
  /// The device-side parse skipped code of the project's own that launches or
  /// sets a kernel's attributes (`<<<`, cudaLaunchKernel, cudaFuncSetAttribute
  /// under `#ifndef __CUDA_ARCH__`): only a host-side parse can read it.
  bool SkippedHostCalls = false;
  /// A `__LINE__` expanded in the unit's own file (written there or in a
  /// macro used there) may reach a fact: it does more than go to printf or
  /// assert. An edit that only moves lines is then analysed again
  /// (frontend/FactsMemo.h).
  bool LineDependent = false;
  /// Why nvcc's module id, in the -rdc names of kernels of internal linkage
  /// (KernelFacts::RelocatableMangled), may differ from the one tilefit
  /// derived; none when it does not.
  Reason ModuleIdCaveat;
  /// What body slicing did (FunctionFacts::UninstantiatedStatements).
  BodySlicing Slicing;
  /// Whether the parse's walks visited the namespaces of the file's own
  /// precompiled headers as recorded ("read") or recorded them ("made"):
  /// frontend/TraversalScope.h; empty when they read them whole.
  std::string HeaderWalk;
  std::vector<SharedVar> Vars;
  std::vector<KernelFacts> Kernels;
  EmissionProgram Emission;
  /// Every `__constant__` variable the unit defines (nvcc emits them all, used
  /// or not), and the walk that orders them in the module, as Emission does for
  /// `__shared__` variables.
  std::vector<SharedVar> ConstantVars;
  EmissionProgram ConstantEmission;
  /// Per-thread local arrays (`float acc[8][8]`) and objects holding arrays
  /// (`nvcuda::wmma::fragment<...>`) of the functions some kernel reaches
  /// (FunctionFacts).
  std::vector<SharedVar> LocalArrays;
  /// The functions some kernel reaches (FunctionFacts): the raw call graph.
  std::vector<FunctionFacts> Functions;
  /// Problems with the unit itself: unreadable, not CUDA, parse errors.
  std::vector<Diagnostic> Diagnostics;
  /// The rewrites the parse needed (empty for most units).
  std::vector<SourceFixup> Fixups;
  /// Launches of kernel templates lost to errors (empty unless Partial).
  std::vector<LostLaunch> LostLaunches;
  /// Every file the parse read (absolute paths), for the result cache. Not
  /// stored with it.
  std::vector<std::string> Inputs;
};

} // namespace tilefit

#endif
