// `assignor import streams-group` (DESIGN 4.7): a KIP-1071 streams group, as
// `kafka-streams-groups.sh --describe --group G --members --verbose` (Kafka 4.1+) prints it, as a
// cluster file. Each process is a client, each of its members a thread named by its member id
// (previous_by_thread), the members' current tasks are the previous ones; a verbose description's
// TARGET- columns (the group coordinator's decision) become an assignment file beside it.
//
// The description has no lags: an optional offsets file gives them (YAML or JSON:
//   end_offsets: {"0_0": 1200}                    # each stateful task's end-offset sum
//   offset_sums: {<process id>: {"0_0": 1100}}    # what each process has on disk
// ); without it, a task with a standby or warmup anywhere is stateful, every member holding a copy
// is caught up on it and the others are not (a placeholder end-offset sum, said in the notes).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace assignor::host {

struct StreamsGroupOptions {
  std::string file;
  std::filesystem::path output_dir;
  std::optional<std::string> offsets;
};

struct StreamsGroupImport {
  std::string group;
  std::string cluster_file;                 // DIR/<group>.cluster.json
  std::optional<std::string> target_file;   // DIR/<group>.target.json, from TARGET- columns
  std::size_t clients = 0, members = 0, tasks = 0, stateful_tasks = 0;
  std::vector<std::string> notes;
};

// InputError naming file:line for a description it cannot read.
StreamsGroupImport import_streams_group(const StreamsGroupOptions& options);

}  // namespace assignor::host
