#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/lags.hpp"
#include "assignor/metrics.hpp"
#include "assignor/validation.hpp"
#include "commands.hpp"

namespace assignor::cli {

Command add_validate(CLI::App& parent, const Globals& globals) {
  struct Options {
    std::string config, cluster, assignment, format = "table";
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("validate", "Check an assignment JSON against its cluster file");
  app->add_option("--cluster", o->cluster, "Cluster file")->required()->check(input_file());
  app->add_option("--assignment", o->assignment, "Assignment JSON")->required()->check(input_file());
  app->add_option("--config", o->config, "Config file (for the settings; Kafka's defaults otherwise)")
      ->check(input_file());
  app->add_option("--format", o->format, "Output format (default table)")->check(CLI::IsMember({"json", "table"}));
  return {app, [o, &globals] {
            refuse_overwriting_inputs({}, {{"--cluster", o->cluster}, {"--assignment", o->assignment},
                                           {"--config", o->config}});
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
              std::cerr << fmt::format("{}: invalid assignment ({} error{})\n", o->assignment, errors.size(),
                                       errors.size() == 1 ? "" : "s");
              for (const auto& e : errors)
                std::cerr << fmt::format("  - {}: {}\n", to_string(e.kind), e.message);
              return static_cast<int>(kStrategyFailed);
            }
            const LagModel lags(cluster, settings);
            host::AssignmentReport report;
            report.strategy = parsed.strategy;
            report.assignment = parsed.assignment;
            report.assignment.normalize();
            report.probing_after_ms = settings.probing_rebalance_interval_ms;
            report.metrics = compute_metrics(cluster, settings, lags, report.assignment);
            if (o->format == "json") {
              nlohmann::ordered_json out;
              out["valid"] = true;
              out["metrics"] = host::metrics_to_json(report.metrics);
              write_output(out.dump(2) + "\n", "");
            } else {
              write_output(fmt::format("{}: valid\n", o->assignment) + host::to_table(cluster, report), "");
            }
            return static_cast<int>(kOk);
          }};
}

}  // namespace assignor::cli
