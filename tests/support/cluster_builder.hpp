// Builds clusters in tests by id, the way a cluster file would describe them.
//
//   Cluster c = ClusterBuilder()
//                   .stateful("0_0", 1000)
//                   .client("a", 1).previous_active({"0_0"}).offsets({{"0_0", -2}})
//                   .build();
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor::testing {

class ClusterBuilder {
 public:
  ClusterBuilder& stateful(const std::string& id, std::int64_t end_offset);
  ClusterBuilder& nonlogged(const std::string& id);
  ClusterBuilder& mixed(const std::string& id, std::int64_t end_offset);  // logged + non-logged store
  ClusterBuilder& stateless(const std::string& id);
  // Several tasks of one kind at once, in order: stateful_tasks({"0_0", "0_1"}, 1000).
  ClusterBuilder& stateful_tasks(const std::vector<std::string>& ids, std::int64_t end_offset);
  ClusterBuilder& stateless_tasks(const std::vector<std::string>& ids);
  ClusterBuilder& task(Task task);
  // A task of the given weight: stateless, or stateful with one logged store when end_offset >= 0.
  ClusterBuilder& weighted(const std::string& id, double weight, std::int64_t end_offset = -1);
  ClusterBuilder& end_offsets_unknown();

  ClusterBuilder& client(const std::string& id, std::uint32_t threads = 1);
  // One client a task: client ids[i] (one thread) ran tasks[i] before, as its only previous active.
  ClusterBuilder& one_previous_active_each(const std::vector<std::string>& ids, const std::vector<std::string>& tasks);
  // The following apply to the last client added.
  ClusterBuilder& previous_active(const std::vector<std::string>& tasks);
  ClusterBuilder& previous_standby(const std::vector<std::string>& tasks);
  ClusterBuilder& offsets(const std::vector<std::pair<std::string, std::int64_t>>& sums);
  // The client ran these tasks and runs them still: previous_active(tasks), and for each the offset
  // sum a running task reports (kRunningOffsetSum), added to the client's offsets.
  ClusterBuilder& running_actives(const std::vector<std::string>& tasks);
  ClusterBuilder& rack(const std::string& rack);
  ClusterBuilder& tag(const std::string& key, const std::string& value);

  Cluster build() const;

 private:
  struct PendingClient {
    std::string id;
    std::uint32_t threads;
    std::string rack;
    std::map<std::string, std::string> tags;
    std::vector<std::string> previous_active, previous_standby;
    std::vector<std::pair<std::string, std::int64_t>> offsets;
  };
  std::vector<Task> tasks_;
  std::vector<PendingClient> clients_;
  bool end_offsets_known_ = true;
};

// "c1" -> sorted task ids it holds in a role, for readable assertions.
std::vector<std::string> actives_of(const Cluster& cluster, const Assignment& a, const std::string& client);
std::vector<std::string> standbys_of(const Cluster& cluster, const Assignment& a, const std::string& client);
std::vector<std::string> warmups_of(const Cluster& cluster, const Assignment& a, const std::string& client);
// The client id running a task actively ("" when none).
std::string active_client_of(const Cluster& cluster, const Assignment& a, const std::string& task);

}  // namespace assignor::testing
