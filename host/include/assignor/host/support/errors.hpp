// The host's errors and the one mapping from an error to its kind, its exit status (DESIGN 4.3)
// and its word on the wire (host/include/assignor/host/process/frames.hpp). Every place that turns
// a failure into a status or a message, or a message from a child process back into a failure,
// goes through here, so that a kind cannot be mapped two ways.
//
//   catch (const std::exception& e) { return exit_status(error_kind(e)); }
//   throw_error(ErrorKind::plugin, "no strategy named 'x'");      // throws PluginError
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "assignor/validation.hpp"

namespace assignor::host {

// A plugin could not be loaded, or the named strategy does not exist: exit status 3.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The strategy failed and no fallback rescued it: exit status 4. what() lists the reasons.
class AssignmentFailed : public std::runtime_error {
 public:
  AssignmentFailed(const std::string& message, std::vector<ValidationError> errors)
      : std::runtime_error(message), errors_(std::move(errors)) {}
  const std::vector<ValidationError>& errors() const noexcept { return errors_; }

 private:
  std::vector<ValidationError> errors_;
};

// The exit statuses of DESIGN 4.3 (1: an internal error, which no input should cause).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitPluginError = 3;
inline constexpr int kExitStrategyFailed = 4;

// Every kind of failure the host tells apart, most specific type first.
enum class ErrorKind : unsigned char {
  config,         // ConfigError (an InputError): exit 2
  input,          // InputError: exit 2
  plugin,         // PluginError: exit 3
  failed,         // AssignmentFailed: exit 4
  strategy,       // StrategyError: exit 4
  out_of_memory,  // std::bad_alloc while reading or checking an input: exit 2
  internal,       // anything else: exit 1
};

ErrorKind error_kind(const std::exception& e) noexcept;
int exit_status(ErrorKind kind) noexcept;

// The kind's word on the wire ("config", "input", ...) and back; nullopt for an unknown word.
std::string_view error_kind_name(ErrorKind kind) noexcept;
std::optional<ErrorKind> error_kind_named(std::string_view word) noexcept;

// Throws the exception type of `kind` with `message` (AssignmentFailed without validation errors;
// out_of_memory as std::bad_alloc, whose message is fixed; internal as std::runtime_error).
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

}  // namespace assignor::host
