// Result<T>: a value or an Error, used for everything that can fail at runtime across module boundaries.
// A small stand-in for C++23 std::expected (tl::expected style), so errors are values, not exceptions.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace vimgpt {

enum class ErrorKind {
  InvalidArgument,  // the caller (or the user, through a flag) asked for something that cannot be done
  NotFound,         // a file, label, element or model that does not exist
  Timeout,          // a deadline passed before the answer came
  BrowserExited,    // the Chromium process or its connection is gone
  Protocol,         // the DevTools peer answered with an error or with something unreadable
  Navigation,       // a page failed to load (refused connection, DNS, blocked by policy)
  Network,          // a transport failure talking to a model provider
  Http,             // a model provider answered with an HTTP error status
  Parse,            // text that should have been JSON (or an action) was not
  Refused,          // policy or validation said no (blocked URL, unsafe action), or the model declined
  BudgetSpent,      // a budget the user set (--max-cost, --max-tokens-total) is used up
  Io,               // reading or writing a local file failed
  Unsupported,      // the feature is not available here (no microphone, no such format)
  Cancelled,        // the user interrupted
  Internal,         // a bug: an invariant did not hold
};

std::string_view to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;

  // "kind: message", for logs and terminal output.
  [[nodiscard]] std::string describe() const;
};

// Returned by fail(); converts into any Result<T>, so a function can `return fail(...)` whatever its T.
struct Failure {
  Error error;
};

inline Failure fail(ErrorKind kind, std::string message) {
  return Failure{Error{kind, std::move(message)}};
}
inline Failure fail(Error error) {
  return Failure{std::move(error)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  // Constrained to exclude Result, Failure and T, so it hides no copy or move constructor.
  template <typename U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::remove_cvref_t<U>, Result> &&
           !std::is_same_v<std::remove_cvref_t<U>, Failure> && !std::is_same_v<std::remove_cvref_t<U>, T>)
      // NOLINTNEXTLINE(bugprone-forwarding-reference-overload,google-explicit-constructor)
      Result(U&& value)
      : state_(std::in_place_index<0>, T(std::forward<U>(value))) {}
  Result(Failure failure) : state_(std::in_place_index<1>, std::move(failure.error)) {}  // NOLINT

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

  [[nodiscard]] const Error& error() const& {
    assert(!has_value());
    return std::get<1>(state_);
  }
  // Passes this result's error on, unchanged, as a Result of another type.
  [[nodiscard]] Failure failure() const { return Failure{error()}; }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Failure failure) : error_(std::move(failure.error)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const {
    assert(!ok_);
    return error_;
  }
  [[nodiscard]] Failure failure() const { return Failure{error_}; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Status ok() {
  return {};
}

}  // namespace vimgpt

// Early return on error: `VIMGPT_TRY(auto x, produce());` or `VIMGPT_TRY_VOID(step());`.
#define VIMGPT_CONCAT_INNER(a, b) a##b
#define VIMGPT_CONCAT(a, b) VIMGPT_CONCAT_INNER(a, b)
#define VIMGPT_TRY_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                     \
  if (!tmp) return tmp.failure();        \
  decl = std::move(tmp).value()
#define VIMGPT_TRY(decl, expr) VIMGPT_TRY_IMPL(VIMGPT_CONCAT(vimgpt_try_, __LINE__), decl, expr)
#define VIMGPT_TRY_VOID(expr)                                                               \
  do {                                                                                      \
    if (const auto& vimgpt_status = (expr); !vimgpt_status) return vimgpt_status.failure(); \
  } while (false)
