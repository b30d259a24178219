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
#include <string_view>
#include <vector>

#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

struct StreamsGroupOptions {
  std::string file;
  std::filesystem::path output_dir;
  std::optional<std::string> offsets;
  // The files it would write (<group>.cluster.json, <group>.target.json) are refused when they exist,
  // unless `replace` (then a stale <group>.target.json goes too).
  bool replace = false;
  InputLimits limits;  // the description's size, ids, clients and threads: what `assign` would accept
};

struct StreamsGroupImport {
  std::string group;
  std::string cluster_file;                // DIR/<group>.cluster.json
  std::optional<std::string> target_file;  // DIR/<group>.target.json, from TARGET- columns
  std::size_t clients = 0, members = 0, tasks = 0, stateful_tasks = 0;
  std::vector<std::string> notes;
};

// InputError naming file:line for a description it cannot read.
StreamsGroupImport import_streams_group(const StreamsGroupOptions& options);

// The group a description holds, without writing anything (import_streams_group writes it; the fuzz
// target reads with it). Every id is checked as the cluster reader checks it (printable UTF-8 within
// limits.max_id_length: a control character or U+202E is refused where it is), a task is held by
// one member of a process at most and is active on one process at most: what it returns writes as
// a cluster file (and a target assignment) that `assign` and `validate` accept.
struct StreamsGroup {
  std::string group;
  Cluster cluster;
  std::optional<AssignmentReport> target;  // from a verbose description's TARGET- columns
  std::size_t members = 0;
  std::vector<std::string> notes;
};
StreamsGroup read_streams_group(std::string_view text, const std::string& source,
                                const std::optional<std::string>& offsets, const InputLimits& limits);

}  // namespace assignor::host
