// The kit's settled groups (conformance.hpp, settled_groups()): a real application's group as Kafka
// Streams' HighAvailabilityTaskAssignor left it. Its layout was obtained by playing that
// application's history (two instances, a third and a fourth joining, the third restarted with
// its state wiped, under a new process id) through Kafka's assignor (`high_availability`, which
// gives Kafka's own answer) until it settled, then keeping only the state the clients hold.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "assignor/conformance.hpp"

namespace assignor::conformance {

namespace {

// Sub-topology 0 is stateless (4 partitions); 1, 2 and 3 each keep one logged store (6 partitions).
constexpr std::array<std::int64_t, 18> kEndOffsets = {
    195378, 264546, 310760, 522233, 578550, 572977,   // 1_0 .. 1_5 (counts-store)
    215572, 547846, 356587, 573927, 524328, 486882,   // 2_0 .. 2_5 (totals-store)
    315912, 94210,  335930, 453868, 344282, 563415};  // 3_0 .. 3_5 (joined-store)
constexpr std::array<std::string_view, 3> kStores = {"counts-store", "totals-store", "joined-store"};

struct Member {
  std::string_view id;
  std::string_view actives;   // task ids, space-separated
  std::string_view standbys;  // with one standby
};
// In Kafka's client order (java.util.UUID.compareTo: ids starting 8-f first) the clients are
// c41f..., e2d4..., 1b4e..., 6f96...: not their string order.
constexpr std::array<Member, 4> kMembers = {{
    {"1b4e28ba-2fa1-4d2b-9c3a-5e6f7a8b9c0d", "0_0 1_2 2_0 2_4 3_2", "1_0 1_4 2_2 3_0 3_4"},
    {"6f9619ff-8b86-4d01-b42d-00cf4fc964ff", "0_1 1_3 2_1 2_5 3_3", "1_1 1_5 2_3 3_1 3_5"},
    {"c41f7d02-5e8a-4b19-93d6-7a2e0b8c1f54", "0_2 1_0 1_4 2_2 3_0 3_4", "1_2 2_0 2_4 3_2"},
    {"e2d4c6a8-1b3d-4f5e-a7c9-3e5f7a9b1c2d", "0_3 1_1 1_5 2_3 3_1 3_5", "1_3 2_1 2_5 3_3"},
}};

std::vector<TaskIndex> task_list(const Cluster& cluster, std::string_view ids) {
  std::vector<TaskIndex> out;
  while (!ids.empty()) {
    const auto space = ids.find(' ');
    const std::string_view id = ids.substr(0, space);
    out.push_back(*cluster.find_task(*parse_task_id(id)));
    ids = space == std::string_view::npos ? std::string_view() : ids.substr(space + 1);
  }
  return out;
}

Case settled(std::uint32_t standbys) {
  auto cluster = std::make_shared<Cluster>();
  for (std::int32_t p = 0; p < 4; ++p) {
    Task task;
    task.id = TaskId{0, p};
    cluster->tasks.push_back(std::move(task));
  }
  for (std::int32_t s = 1; s <= 3; ++s)
    for (std::int32_t p = 0; p < 6; ++p) {
      Task task;
      task.id = TaskId{s, p};
      Store store;
      store.name = std::string(kStores[static_cast<std::size_t>(s - 1)]);
      store.changelog_end_offset = kEndOffsets[static_cast<std::size_t>((s - 1) * 6 + p)];
      task.stores.push_back(std::move(store));
      cluster->tasks.push_back(std::move(task));
    }
  for (const Member& m : kMembers) {
    Client client;
    client.id = std::string(m.id);
    client.threads = 1;
    cluster->clients.push_back(std::move(client));
  }
  cluster->finalize();  // tasks and clients are in order already: indices stay as listed
  for (ClientIndex c = 0; c < kMembers.size(); ++c) {
    Client& client = cluster->clients[c];
    client.previous_active = task_list(*cluster, kMembers[c].actives);
    if (standbys > 0) client.previous_standby = task_list(*cluster, kMembers[c].standbys);
    // Running actives report -2, caught-up standbys their end offsets; nothing else is on disk.
    for (TaskIndex t : client.previous_active)
      if (cluster->tasks[t].stateful) client.offset_sums.push_back({t, kRunningOffsetSum});
    for (TaskIndex t : client.previous_standby) client.offset_sums.push_back({t, cluster->tasks[t].end_offset_sum});
    std::sort(client.offset_sums.begin(), client.offset_sums.end(),
              [](const OffsetSum& a, const OffsetSum& b) { return a.task < b.task; });
  }
  cluster->finalize();
  Case c;
  c.name = "settled_kafka_ha_standbys" + std::to_string(standbys);
  c.settings.num_standby_replicas = standbys;
  c.cluster = std::move(cluster);
  c.settled = true;
  return c;
}

}  // namespace

std::vector<Case> settled_groups() { return {settled(0), settled(1)}; }

}  // namespace assignor::conformance
