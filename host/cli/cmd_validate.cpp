#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/threads.hpp"
#include "assignor/validation.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace {

// Without --config the settings are Kafka's defaults (no standbys, 2 warmups). An assignment made
// with other settings then fails on the budgets alone: say which settings it implies instead of
// leaving the user to guess that the config is missing.
std::optional<std::string> missing_config_hint(const Cluster& cluster, const Assignment& assignment,
                                               const std::vector<ValidationError>& errors) {
  const bool budget = std::any_of(errors.begin(), errors.end(), [](const ValidationError& e) {
    return e.kind == ValidationErrorKind::standby_budget_exceeded ||
           e.kind == ValidationErrorKind::warmup_budget_exceeded;
  });
  if (!budget) return std::nullopt;
  std::vector<std::uint32_t> per_task(cluster.task_count(), 0);
  std::uint32_t standbys = 0;
  for (const auto& p : assignment.standbys) standbys = std::max(standbys, ++per_task[p.task]);
  const AssignmentSettings defaults;
  std::vector<std::string> implied;
  if (standbys > defaults.num_standby_replicas) implied.push_back(fmt::format("num_standby_replicas: {}", standbys));
  if (assignment.warmups.size() > defaults.max_warmup_replicas)
    implied.push_back(fmt::format("max_warmup_replicas: {} or more", assignment.warmups.size()));
  std::string list;
  for (const auto& s : implied) list += (list.empty() ? "" : ", ") + s;
  return fmt::format(
      "no --config was given, so Kafka's defaults apply (num_standby_replicas {}, max_warmup_replicas "
      "{}); this assignment implies {}: pass the config it was made with (--config FILE)",
      defaults.num_standby_replicas, defaults.max_warmup_replicas, list);
}

nlohmann::ordered_json errors_json(const Cluster& cluster, const std::vector<ValidationError>& errors) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : errors) {
    nlohmann::ordered_json j;
    j["kind"] = std::string(to_string(e.kind));
    j["task"] = e.task < cluster.task_count() ? nlohmann::ordered_json(to_string(cluster.tasks[e.task].id))
                                              : nlohmann::ordered_json(nullptr);
    j["client"] = e.client < cluster.client_count() ? nlohmann::ordered_json(cluster.clients[e.client].id)
                                                    : nlohmann::ordered_json(nullptr);
    j["message"] = e.message;
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace

Command add_validate(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, assignment, format = "table";
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("validate", "Check an assignment JSON against its cluster file");
  // The files are checked in the command, not by the parser: with --format json a missing file is
  // a JSON answer too.
  app->add_option("--cluster", o->cluster, "Cluster file")->required()->type_name(kInputFileType);
  app->add_option("--assignment", o->assignment, "Assignment JSON")->required()->type_name(kInputFileType);
  app->add_option("--config", o->config,
                  "Config file (for the settings; without it Kafka's defaults: no standbys, 2 warmups)")
      ->type_name(kInputFileType);
  app->add_option("--format", o->format,
                  "Output format (default table); json: one document on stdout whatever the outcome, "
                  "{\"valid\": true|false, ...}")
      ->check(CLI::IsMember({"json", "table"}));
  return {app, [o, &globals] {
            const bool json = o->format == "json";
            // With --format json every outcome is one JSON document on stdout; an input that cannot
            // be read is one too (its message also goes to stderr, and the exit status stays 2).
            try {
              require_input_file("--cluster", o->cluster);
              require_input_file("--assignment", o->assignment);
              require_input_file("--config", o->config);
              refuse_overwriting_inputs(
                  {}, {{"--cluster", o->cluster}, {"--assignment", o->assignment}, {"--config", o->config}});
              std::optional<host::Config> config;
              if (!o->config.empty()) config = host::read_config_file(o->config);
              apply_log_level(globals, config ? &*config : nullptr);
              const AssignmentSettings settings = config ? config->settings : AssignmentSettings{};
              const Cluster cluster =
                  host::read_cluster_file(o->cluster, config ? config->input_limits : host::InputLimits{});
              host::ParsedAssignment parsed = host::read_assignment_file(o->assignment, cluster);
              std::vector<ValidationError> errors = parsed.errors;
              for (auto& e : validate(cluster, settings, parsed.assignment)) errors.push_back(std::move(e));
              if (!errors.empty()) {
                const auto hint = config ? std::nullopt : missing_config_hint(cluster, parsed.assignment, errors);
                std::cerr << fmt::format("{}: invalid assignment ({} error{})\n", o->assignment, errors.size(),
                                         errors.size() == 1 ? "" : "s");
                for (const auto& e : errors) std::cerr << fmt::format("  - {}: {}\n", to_string(e.kind), e.message);
                if (hint) std::cerr << "note: " << *hint << "\n";
                if (json) {
                  nlohmann::ordered_json out;
                  out["valid"] = false;
                  out["errors"] = errors_json(cluster, errors);
                  if (hint) out["note"] = *hint;
                  write_output(out.dump(2) + "\n", "");
                }
                return static_cast<int>(kStrategyFailed);
              }
              const LagModel lags(cluster, settings);
              host::AssignmentReport report;
              report.strategy = parsed.strategy;
              report.assignment = parsed.assignment;
              report.assignment.normalize();
              report.probing_after_ms = settings.probing_rebalance_interval_ms;
              report.timed = parsed.assign_ms.has_value();
              report.assign_ms = parsed.assign_ms.value_or(0);
              report.metrics = compute_metrics(cluster, settings, lags, report.assignment);
              // The per-thread spread the file's own split has; a file without one is split as
              // `assign` splits (the SDK's rule), so the figure is the one assign reported.
              report.metrics.thread_load_spread =
                  parsed.thread_load_spread
                      ? *parsed.thread_load_spread
                      : thread_load_spread(distribute_over_threads(cluster, lags, report.assignment));
              if (json) {
                nlohmann::ordered_json out;
                out["valid"] = true;
                out["strategy"] = report.strategy;
                out["metrics"] = nlohmann::ordered_json(report.metrics);
                out["assign_ms"] =
                    report.timed ? nlohmann::ordered_json(report.assign_ms) : nlohmann::ordered_json(nullptr);
                write_output(out.dump(2) + "\n", "");
              } else {
                write_output(fmt::format("{}: valid\n", o->assignment) + host::to_table(cluster, report), "");
              }
              return static_cast<int>(kOk);
            } catch (const InputError& e) {
              if (json) {
                nlohmann::ordered_json error;
                error["kind"] = "unreadable_input";
                error["task"] = nullptr;
                error["client"] = nullptr;
                error["message"] = e.what();
                nlohmann::ordered_json out;
                out["valid"] = false;
                out["errors"] = nlohmann::ordered_json::array({error});
                write_output(out.dump(2) + "\n", "");
              }
              throw;
            }
          }};
}

}  // namespace assignor::cli
