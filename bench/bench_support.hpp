// What the benchmarks share: the size of a generated group and its label, the generated groups they
// time on (built once per shape and kept), and the bundled plugins they run (the build's plugin
// directory, or --plugin-dir=DIR).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/scenario.hpp"

namespace assignor::bench {

struct Size {
  std::uint32_t tasks;
  std::uint32_t clients;
};

inline std::string label(Size size) { return std::to_string(size.tasks) + "x" + std::to_string(size.clients); }

// One sub-topology per 1,000 tasks, at least 10: the DESIGN sizes' shape.
inline std::uint32_t subtopologies_for(Size size) { return size.tasks / 1000 < 10 ? 10 : size.tasks / 1000; }

// A generated group of `kind` (4 threads per client, half the tasks stateful, 1 standby, seed 42), its
// tasks spread over `subtopologies`, its clients over `racks` racks (0: none). Generated once per shape:
// the large ones take seconds, and every benchmark of a shape times the same group.
inline const Cluster& generated_cluster(ScenarioKind kind, Size size, std::uint32_t subtopologies,
                                        std::uint32_t racks = 0) {
  using Shape = std::tuple<int, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
  static std::map<Shape, std::unique_ptr<Cluster>> cache;
  auto& slot = cache[{static_cast<int>(kind), size.tasks, size.clients, subtopologies, racks}];
  if (!slot) {
    ScenarioSpec spec;
    spec.kind = kind;
    spec.clients = size.clients;
    spec.threads = 4;
    spec.subtopologies = subtopologies;
    spec.partitions = size.tasks / spec.subtopologies;
    spec.stateful_fraction = 0.5;
    spec.standbys = 1;
    spec.racks = racks;
    spec.seed = 42;
    slot = std::make_unique<Cluster>(generate_cluster(spec));
  }
  return *slot;
}

// The bundled plugins, loaded once from the build's plugin directory or the one --plugin-dir=DIR names.
inline const host::PluginRegistry& bundled_plugins(int argc, char** argv) {
  std::string plugin_dir = ASSIGNOR_PLUGIN_DIR;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--plugin-dir=", 13) == 0) plugin_dir = argv[i] + 13;
  static host::PluginRegistry registry;
  registry.load_directory(plugin_dir, host::PluginOrigin::bundled);
  return registry;
}

}  // namespace assignor::bench
