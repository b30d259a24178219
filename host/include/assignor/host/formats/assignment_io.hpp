// The assignment JSON of DESIGN 4.4: writing it (and a readable table), and reading it back for
// `assignor validate`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/assignment.hpp"
#include "assignor/metrics.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"
#include "assignor/threads.hpp"
#include "assignor/validation.hpp"

namespace assignor {

// The metrics of DESIGN 4.5 as JSON, keys in its order (record_json.hpp): `ordered_json j = metrics;`
// and back, for results that cross a process boundary (compare --jobs): `j.get<Metrics>()`, a
// missing key keeping its default. ordered_json keeps the order, so the output is stable and readable.
void to_json(nlohmann::ordered_json& j, const Metrics& metrics);
void from_json(const nlohmann::json& j, Metrics& metrics);

}  // namespace assignor

namespace assignor::host {

struct AssignmentReport {
  std::string strategy;
  Assignment assignment;
  std::int64_t probing_after_ms = 0;
  Metrics metrics;
  double assign_ms = 0;
  bool timed = true;                          // false: assign_ms is not known (validate of a file without it): "n/a"
  std::optional<ThreadDistribution> threads;  // per-thread split of each client's tasks
};

// {"needed": ..., "after_ms": ...}: the probing decision as the assignment JSON (DESIGN 4.4), the
// rounds of simulate and compare's rows write it.
nlohmann::ordered_json probing_json(bool needed, std::int64_t after_ms);
// JSON for people and machines: objects indented one key per line, arrays of scalars (task lists)
// on one line, so a 100k-task assignment stays readable and compact. Ends with a newline.
std::string pretty_json(const nlohmann::ordered_json& value);
// The assignment JSON of DESIGN 4.4 in pretty_json()'s layout, written straight from the model.
// Throws std::invalid_argument when a placement's task or client index is out of range.
std::string assignment_json(const Cluster& cluster, const AssignmentReport& report);

// A table for people: one row per client (id, threads, active/standby/warmup counts and ids), then
// the probing decision and the metrics.
std::string to_table(const Cluster& cluster, const AssignmentReport& report);

struct ParsedAssignment {
  std::string strategy;
  Assignment assignment;
  // Name-level problems found while reading (unknown task or client ids, missing clients, the
  // same task twice in one list): reported with the structural errors of validate().
  std::vector<ValidationError> errors;
  // What the file says about how it was made, when it says it: the time the strategy took
  // (assign_ms), and the per-thread load spread of its split (when every client that holds tasks
  // lists its threads and the split is sound).
  std::optional<double> assign_ms;
  std::optional<std::size_t> thread_load_spread;
};

// Throws InputError when the file is not an assignment JSON at all (syntax, missing "assignment").
ParsedAssignment read_assignment_file(const std::filesystem::path& path, const Cluster& cluster);
// The same from text (`source` names it in messages).
ParsedAssignment parse_assignment(std::string_view text, const std::string& source, const Cluster& cluster);

// Whether `got` places exactly what `kafka` places: the same actives and the same copies (standby
// and warmup together: Kafka's log prints them as one list) on each client, and the same probing
// decision; with the first `limit` differences for people.
struct AssignmentComparison {
  bool same = true;
  std::vector<std::string> differences;
};
AssignmentComparison compare_assignments(const Cluster& cluster, const Assignment& kafka, const Assignment& got,
                                         std::size_t limit);

}  // namespace assignor::host
