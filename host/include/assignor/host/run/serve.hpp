// The resident worker (`assignor serve`, DESIGN 4.9): one process that keeps the config's plugins
// loaded and answers assignment requests one at a time, so that a bridge pays neither process start
// nor plugin loading per rebalance.
//
// Requests and answers are frames (process/frames.hpp), both directions:
//   "assign N" + a cluster document (DESIGN 4.1, YAML or JSON)
//       -> "ok N" + the assignment output (DESIGN 4.4, the JSON `assignor assign` prints)
//       -> "error CODE N" + the message, CODE the exit status `assignor assign` would have given
// Each request gets what `assign` does: the input limits, the strategy's isolation and limits,
// validation, the fallback, the metrics. A request the worker cannot answer (a bad cluster
// document, a strategy that failed with no fallback) is an error answer; the worker goes on.
// A stream that is not frames is not a peer speaking the protocol: the worker stops (exit 2)
// with the reason on stderr, and its owner replaces it.
//
//   ServeStats stats = serve(registry, config, {.strategy = ""}, STDIN_FILENO, result_output_fd());
#pragma once

#include <cstdint>
#include <string>

#include "assignor/host/formats/config_reader.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"

namespace assignor::host {

struct ServeOptions {
  std::string strategy;  // empty: the config's strategy
};

struct ServeStats {
  std::uint64_t requests = 0;
  std::uint64_t answered = 0;  // "ok"
  std::uint64_t errors = 0;    // "error"
};

// Answers the requests read from `in_fd` on `out_fd` until `in_fd` ends between frames. Throws
// InputError for a malformed request stream (or one that ends inside a frame), and when the
// answers can no longer be written (the peer has gone).
ServeStats serve(const PluginRegistry& registry, const Config& config, const ServeOptions& options, int in_fd,
                 int out_fd);

// The answer to one request (a whole frame), for the loop above and for tests.
std::string answer_request(const PluginRegistry& registry, const Config& config, const ServeOptions& options,
                           const std::string& kind, const std::string& payload, std::uint64_t number);

}  // namespace assignor::host
