// Typed errors with messages a user can act on: what is wrong, where, and (when known) how to fix it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace assignor {

// Bad cluster file, config or argument: the command exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A configuration value a strategy or the host cannot accept (a kind of input error).
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

// A strategy could not produce an assignment.
class StrategyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Edit distance used to suggest the nearest known key for a misspelt one.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The candidate nearest to `word`, or "" when none is reasonably close.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace assignor
