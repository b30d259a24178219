// Shared pieces of the deliberately broken test plugins (one library per loader or runner error
// path, in the spirit of Envoy's test_data modules).
//
// A library that needs a descriptor ASSIGNOR_PLUGIN cannot express (wrong API version, wrong
// fingerprint, null factory, a factory that throws or returns null) builds it by hand and exports it
// with ASSIGNOR_PLUGIN_DESCRIPTOR (plugin.hpp), which is exactly what ASSIGNOR_PLUGIN does after its
// descriptor: the entry point and the name note.
#pragma once

#include <assignor/sdk.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace assignor_test_plugins {

// Every task active on client 0, nothing else: valid whenever the cluster has a client.
inline assignor::Assignment all_on_first_client(const assignor::Cluster& cluster) {
  assignor::Assignment out;
  if (cluster.client_count() == 0) return out;
  for (assignor::TaskIndex t = 0; t < cluster.task_count(); ++t) out.actives.push_back({t, 0});
  return out;
}

// The same as a strategy (assignor::FunctionStrategy<all_on_first_client_strategy>).
inline assignor::Assignment all_on_first_client_strategy(const assignor::AssignmentInput& in) {
  return all_on_first_client(in.cluster);
}

// A strategy that is never asked to assign (used by descriptors whose loading or creation fails).
class Unused final : public assignor::Strategy {
 public:
  Unused() = default;
  explicit Unused(const assignor::StrategyParams&) {}
  assignor::Assignment assign(const assignor::AssignmentInput& in) override { return all_on_first_client(in.cluster); }
};

inline void destroy_strategy(assignor::Strategy* strategy) noexcept { delete strategy; }
inline assignor::Strategy* create_unused(const assignor::StrategyParams&) { return new Unused(); }

// A descriptor of an Unused strategy, version 1.0.0 with no capabilities, for the libraries whose
// fault is in the descriptor's API version or fingerprint, or beside it (the name note).
constexpr assignor::PluginDescriptor unused_descriptor(const char* name, const char* description,
                                                       std::uint32_t api_version = assignor::kPluginApiVersion,
                                                       const char* fingerprint = assignor::kBuildFingerprint) {
  return {api_version, fingerprint, name, "1.0.0", description, 0, &create_unused, &destroy_strategy};
}

// Says `text` on standard error, in one write straight to the descriptor (what the hostile
// strategies below report, and the tests read).
inline void say(const std::string& text) {
  const std::string line = text + "\n";
  [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
}

// "<who>: <via>: REACHED the host" when an attempt on the host succeeded (`result` 0), else
// "refused (<errno's text>)".
inline void say_attempt(const std::string& who, const std::string& via, long result) {
  say(who + ": " + via + ": " +
      (result == 0 ? std::string("REACHED the host") : "refused (" + std::string(std::strerror(errno)) + ")"));
}

// A strategy that makes an attempt on its host, then answers validly (everything on the first
// client). Its parameters: `via`, how (DefaultVia unless given), and `target`, at whom: `parent`
// (the default: the host when isolated) or `self` (this very process, the host in process).
template <void (*Attempt)(const std::string& via, pid_t host), const char* DefaultVia>
class AttemptOnHost final : public assignor::Strategy {
 public:
  explicit AttemptOnHost(const assignor::StrategyParams& params)
      : via_(params.get_string("via", DefaultVia)), target_(params.get_string("target", "parent")) {
    params.reject_unknown({"via", "target"});
  }
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    Attempt(via_, target_ == "self" ? ::getpid() : ::getppid());
    return all_on_first_client(in.cluster);
  }

 private:
  std::string via_, target_;
};

}  // namespace assignor_test_plugins
