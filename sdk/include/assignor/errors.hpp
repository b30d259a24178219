// Typed errors with messages a user can act on: what is wrong, where, and (when known) how to fix it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace assignor {

// Bad cluster file, config or argument: the command exits with status 2.
// Each error type has an out-of-line destructor (its key function), so its type_info lives once in
// the SDK library: an exception thrown in a plugin is caught by type in the host.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~InputError() override;
};

// A configuration value a strategy or the host cannot accept (a kind of input error).
class ConfigError : public InputError {
 public:
  using InputError::InputError;
  ~ConfigError() override;
};

// A strategy could not produce an assignment.
class StrategyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~StrategyError() override;
};

// Edit distance used to suggest the nearest known key for a misspelt one.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The candidate nearest to `word`, or "" when none is reasonably close.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace assignor
