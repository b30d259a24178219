// Shared pieces of the deliberately broken test plugins (one library per loader or runner error
// path, in the spirit of Envoy's test_data modules).
//
// A library that needs a descriptor ASSIGNOR_PLUGIN cannot express (wrong API version, wrong
// fingerprint, null factory, a factory that throws or returns null) builds it by hand and exports it
// with ASSIGNOR_PLUGIN_DESCRIPTOR (plugin.hpp), which is exactly what ASSIGNOR_PLUGIN does after its
// descriptor: the entry point and the name note.
#pragma once

#include <assignor/sdk.hpp>

namespace assignor_test_plugins {

// Every task active on client 0, nothing else: valid whenever the cluster has a client.
inline assignor::Assignment all_on_first_client(const assignor::Cluster& cluster) {
  assignor::Assignment out;
  if (cluster.client_count() == 0) return out;
  for (assignor::TaskIndex t = 0; t < cluster.task_count(); ++t) out.actives.push_back({t, 0});
  return out;
}

// A strategy that is never asked to assign (used by descriptors whose loading or creation fails).
class Unused final : public assignor::Strategy {
 public:
  assignor::Assignment assign(const assignor::AssignmentInput& in) override {
    return all_on_first_client(in.cluster);
  }
};

inline void destroy_strategy(assignor::Strategy* strategy) noexcept { delete strategy; }

}  // namespace assignor_test_plugins
