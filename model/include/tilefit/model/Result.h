//===- Result.h -------------------------------------------------*- C++ -*-===//
//
// A value or an error message, for the Clang-free layers.
//
// The model cannot use llvm::Expected (it links no LLVM), so loaders return
// this instead. The message is complete and user-facing: it names the input,
// the place and the problem.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_MODEL_RESULT_H
#define TILEFIT_MODEL_RESULT_H

#include <optional>
#include <string>
#include <utility>

namespace tilefit {

struct ErrorMessage {
  std::string Text;
};

template <typename T> class [[nodiscard]] Result {
public:
  Result(T Value) : Value(std::move(Value)) {}
  Result(ErrorMessage E) : Error(std::move(E.Text)) {}

  explicit operator bool() const { return Value.has_value(); }
  T &operator*() { return *Value; }
  const T &operator*() const { return *Value; }
  T *operator->() { return &*Value; }
  const T *operator->() const { return &*Value; }
  const std::string &error() const { return Error; }

private:
  std::optional<T> Value;
  std::string Error;
};

} // namespace tilefit

#endif
