// `assignor import kafka-log` (DESIGN 4.7): every rebalance a Kafka Streams group leader logged,
// from any number of log files (plain or gzip, any layout, several instances, leaders changing),
// as one cluster file, config and Kafka decision per rebalance, in time order, plus index.json.
//
//   ImportOptions options{{"app-1.log", "app-2.log.gz"}, "imported/"};
//   ImportResult result = import_kafka_logs(options);   // writes imported/rebalance-0001.* ...
//   std::cout << import_table(result);
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor::host {

struct ImportOptions {
  std::vector<std::string> logs;  // "-" is standard input
  // Created if missing. A directory that holds anything is refused unless `replace`: then the files
  // of a previous import there (rebalance-*, index.json) are replaced, once this one has succeeded.
  std::filesystem::path output_dir;
  bool replace = false;
  std::optional<std::string> streams_config;  // the application's Kafka Streams properties file
  // Bounds on each log (docs/reliability.md): a longer line is cut there (a Decided line cut is a
  // warning); more bytes than max_file_bytes (decompressed) is an InputError.
  std::uint64_t max_line_bytes = std::uint64_t{32} << 20;
  std::uint64_t max_file_bytes = std::uint64_t{1} << 30;
  // Called now and then with the bytes read so far (a progress line); may be empty.
  std::function<void(std::uint64_t bytes, std::size_t rebalances)> progress;
  // Kafka's log prints warmups inside standbyTasks. When this is given (the command runs the bundled
  // high_availability, which gives Kafka's own answers) and its answer for the rebalance places the
  // same actives and copies as Kafka's decision, its split into standbys and warmups is taken: the
  // one Kafka made. Otherwise (or when it differs) warmups are told apart by lag: the copies beyond
  // num_standby_replicas on the clients furthest behind.
  std::function<std::optional<Assignment>(const Cluster&, const AssignmentSettings&)> replay_kafka;
};

// One imported rebalance (an entry of index.json).
struct ImportedRebalance {
  std::string name;       // files NAME.cluster.json, NAME.config.yaml, NAME.kafka.json
  std::string timestamp;  // as the log printed it
  std::optional<std::int64_t> time_ms;
  std::string source;    // "file:line"
  std::string instance;  // a container or host name the layout gave, else ""
  std::string variant;   // Kafka's ClientState.toString: "2.6", "2.7-3.1", "3.2+"
  std::size_t clients = 0, tasks = 0, logged_tasks = 0, actives = 0, standbys = 0, warmups = 0;
  bool probing = false;
  std::string settings_from;  // "--streams-config FILE", "the log's StreamsConfig dump (file:line)", "Kafka's defaults"
  bool standbys_inferred = false;
  std::uint32_t num_standby_replicas = 0;
  std::size_t warmups_by_lag = 0;  // tasks whose warmups were chosen by lag among more candidates
  std::string warmups_told_apart;  // "none", "by replaying high_availability", "by lag"
  std::vector<std::string> notes;
};
// A rebalance's entry in index.json (record_json.hpp): `ordered_json j = rebalance;`, and back by
// `j.get<ImportedRebalance>()`, a missing key keeping its default (read_import_index checks the name).
void to_json(nlohmann::ordered_json& j, const ImportedRebalance& rebalance);
void from_json(const nlohmann::json& j, ImportedRebalance& rebalance);

struct ImportResult {
  std::vector<ImportedRebalance> rebalances;  // in time order (then file order, then line)
  std::vector<std::string> warnings;          // "file:line: what could not be read"
  std::size_t duplicates = 0;                 // the same Decided line seen again (overlapping files)
  std::uint64_t bytes = 0, lines = 0;
};

// Throws InputError for an unreadable file or properties file, a damaged or truncated .gz, a log
// past its limit, or an output directory that is not empty (without `replace`); lines it cannot read
// fully are warnings (in the result, and logged). The files are written in a hidden directory inside
// output_dir and put in place when everything was read: a failure or a signal leaves the directory
// as it was. The caller decides what "nothing imported" means.
ImportResult import_kafka_logs(const ImportOptions& options);

std::string import_table(const ImportResult& result);
std::string import_index_json(const ImportResult& result);

// Reads an import's index.json back (for replay): the rebalances in its order. InputError when the
// directory holds no index.json or it is not one.
std::vector<ImportedRebalance> read_import_index(const std::filesystem::path& dir);

}  // namespace assignor::host
