#include "assignor/host/support/errors.hpp"

#include <array>
#include <new>
#include <utility>

#include "assignor/errors.hpp"

namespace assignor::host {

namespace {

constexpr std::array<std::pair<ErrorKind, std::string_view>, 7> kNames{{
    {ErrorKind::config, "config"},
    {ErrorKind::input, "input"},
    {ErrorKind::plugin, "plugin"},
    {ErrorKind::failed, "failed"},
    {ErrorKind::strategy, "strategy"},
    {ErrorKind::out_of_memory, "out_of_memory"},
    {ErrorKind::internal, "internal"},
}};

}  // namespace

ErrorKind error_kind(const std::exception& e) noexcept {
  if (dynamic_cast<const ConfigError*>(&e) != nullptr) return ErrorKind::config;
  if (dynamic_cast<const InputError*>(&e) != nullptr) return ErrorKind::input;
  if (dynamic_cast<const PluginError*>(&e) != nullptr) return ErrorKind::plugin;
  if (dynamic_cast<const AssignmentFailed*>(&e) != nullptr) return ErrorKind::failed;
  if (dynamic_cast<const StrategyError*>(&e) != nullptr) return ErrorKind::strategy;
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return ErrorKind::out_of_memory;
  return ErrorKind::internal;
}

int exit_status(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::config:
    case ErrorKind::input:
    case ErrorKind::out_of_memory: return kExitBadInput;
    case ErrorKind::plugin: return kExitPluginError;
    case ErrorKind::failed:
    case ErrorKind::strategy: return kExitStrategyFailed;
    case ErrorKind::internal: break;
  }
  return kExitInternal;
}

std::string_view error_kind_name(ErrorKind kind) noexcept {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "internal";
}

std::optional<ErrorKind> error_kind_named(std::string_view word) noexcept {
  for (const auto& [k, name] : kNames)
    if (name == word) return k;
  return std::nullopt;
}

void throw_error(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::config: throw ConfigError(message);
    case ErrorKind::input: throw InputError(message);
    case ErrorKind::plugin: throw PluginError(message);
    case ErrorKind::failed: throw AssignmentFailed(message, {});
    case ErrorKind::strategy: throw StrategyError(message);
    case ErrorKind::out_of_memory: throw std::bad_alloc();
    case ErrorKind::internal: break;
  }
  throw std::runtime_error(message);
}

}  // namespace assignor::host
