#include "assignor/host/run/serve.hpp"

#include <fmt/format.h>

#include <exception>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/process/frames.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/errors.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host {

std::string answer_request(const PluginRegistry& registry, const Config& config, const ServeOptions& options,
                           const std::string& kind, const std::string& payload, std::uint64_t number) {
  if (kind != "assign")
    return process::error_frame(
        ErrorKind::input,
        fmt::format("request {}: unknown request '{}' (this worker answers 'assign')", number, printable(kind)));
  try {
    const Cluster cluster = parse_cluster(payload, fmt::format("request {}", number), config.input_limits);
    const std::string strategy = strategy_to_run(config, options.strategy);
    const RunOutcome outcome = run_assignment(registry, config, cluster, strategy);
    return process::encode_frame({"ok"}, assignment_json(cluster, outcome.report));
  } catch (const std::exception& e) {
    const ErrorKind error = error_kind(e);
    const std::string message = error == ErrorKind::out_of_memory ? fmt::format("request {}: ran out of memory", number)
                                                                  : std::string(e.what());
    const std::string place = fmt::format("request {}", number);
    if (message.starts_with(place))
      log().warn("{}", printable(message, /*keep_newlines=*/true));
    else
      log().warn("{}: {}", place, printable(message, /*keep_newlines=*/true));
    return process::error_frame(error, message);
  }
}

ServeStats serve(const PluginRegistry& registry, const Config& config, const ServeOptions& options, int in_fd,
                 int out_fd) {
  ServeStats stats;
  // A request is a cluster document: it may be as large as a cluster file may be.
  process::FrameReader reader({config.input_limits.max_file_bytes});
  while (auto request = process::read_frame(in_fd, reader)) {
    ++stats.requests;
    const std::string answer =
        request->words.size() == 1
            ? answer_request(registry, config, options, request->kind(), request->payload, stats.requests)
            : process::error_frame(ErrorKind::input, fmt::format("request {}: '{}' takes no words but the length",
                                                                 stats.requests, printable(request->kind())));
    (answer.starts_with("ok ") ? stats.answered : stats.errors) += 1;
    if (!process::write_all(out_fd, answer))
      throw InputError(fmt::format("cannot write the answer to request {}: the peer has gone", stats.requests));
  }
  return stats;
}

}  // namespace assignor::host
