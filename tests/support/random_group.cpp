#include "random_group.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "assignor/task_id.hpp"

namespace assignor::testing {

namespace {

// A value in [lo, hi] (inclusive), shrinking towards lo.
template <class T>
T pick(T lo, T hi) {
  return *rc::gen::inRange<T>(lo, hi + 1);
}

// True with probability 1/n (shrinks towards false).
bool one_in(std::uint32_t n) { return pick<std::uint32_t>(1, n) == n; }

bool holds(const std::vector<TaskIndex>& list, TaskIndex t) {
  return std::find(list.begin(), list.end(), t) != list.end();
}

bool reported(const Client& client, TaskIndex t) {
  return std::any_of(client.offset_sums.begin(), client.offset_sums.end(),
                     [t](const OffsetSum& o) { return o.task == t; });
}

Group make_group(const GroupShape& shape) {
  Group g;
  Cluster& c = g.cluster;
  const std::uint32_t racks = shape.racks ? pick<std::uint32_t>(1, 3) : 0;
  for (std::uint32_t r = 0; r < racks; ++r) c.racks.push_back("rack-" + std::to_string(r));
  const auto weights = shape.weights ? pick(0, 3) : 0;  // unit, uniform, Zipf by partition, one hot task

  for (std::uint32_t s = 0, n = pick<std::uint32_t>(1, shape.max_subtopologies); s < n; ++s) {
    const auto kind = pick(0, shape.nonlogged_stores ? 3 : 1);  // stateless, logged, non-logged, mixed
    for (std::uint32_t p = 0, m = pick<std::uint32_t>(1, shape.max_partitions); p < m; ++p) {
      Task t;
      t.id = {static_cast<std::int32_t>(s), static_cast<std::int32_t>(p)};
      if (kind == 1 || kind == 3) t.stores.push_back({"log", true, pick<std::int64_t>(0, shape.max_end_offset)});
      if (kind == 2 || kind == 3) t.stores.push_back({"mem", false, 0});
      t.weight = weights == 0   ? 1.0
                 : weights == 1 ? pick(1, 1000) / 100.0
                 : weights == 2 ? std::max<std::uint32_t>(1, (2000 + p + 1) / (2 * (p + 1))) / 100.0
                                : (s == 0 && p == 0 ? 40.0 : pick(10, 300) / 100.0);
      if (racks > 0) {
        PartitionRef ref{"topic-" + std::to_string(s), static_cast<std::int32_t>(p), {}};
        for (RackIndex r = 0; r < racks; ++r)
          if (one_in(3)) ref.racks.push_back(r);
        t.partitions.push_back(std::move(ref));
      }
      c.tasks.push_back(std::move(t));
    }
  }

  const auto clients = pick<std::uint32_t>(shape.min_clients, shape.max_clients);
  const bool tags = racks > 0 && one_in(2);
  for (std::uint32_t i = 0; i < clients; ++i) {
    Client client;
    client.id = "client-" + std::to_string(i);
    client.threads = pick<std::uint32_t>(1, shape.max_threads);
    if (racks > 0) client.rack = pick<RackIndex>(0, racks - 1);
    if (tags) client.tags = {{"zone", "z" + std::to_string(pick(0, 2))}, {"cluster", "k" + std::to_string(pick(0, 1))}};
    c.clients.push_back(std::move(client));
  }

  // History: most tasks had an owner (running: -2), some are orphans; other clients hold copies of
  // stateful tasks at any lag, previous standbys near the end.
  const auto favourite = pick<std::uint32_t>(0, clients - 1);
  for (TaskIndex t = 0; t < c.tasks.size(); ++t) {
    const Task& task = c.tasks[t];
    std::int64_t end = 0;
    for (const Store& store : task.stores) end += store.logged ? store.changelog_end_offset : 0;
    const bool logged =
        end > 0 || std::any_of(task.stores.begin(), task.stores.end(), [](const Store& s) { return s.logged; });
    if (!one_in(4)) {
      const auto owner = shape.skewed_history && one_in(2) ? favourite : pick<std::uint32_t>(0, clients - 1);
      c.clients[owner].previous_active.push_back(t);
      if (!task.stores.empty() && !one_in(5)) c.clients[owner].offset_sums.push_back({t, -2});
    }
    if (task.stores.empty()) continue;
    for (Client& client : c.clients) {
      if (holds(client.previous_active, t) || reported(client, t)) continue;
      const auto roll = pick(0, 5);
      if (roll == 0 && logged && shape.previous_standbys) {
        client.previous_standby.push_back(t);
        client.offset_sums.push_back({t, std::max<std::int64_t>(0, end - pick<std::int64_t>(0, 30000))});
      } else if (roll == 1 && shape.other_copies) {
        client.offset_sums.push_back({t, pick<std::int64_t>(0, end)});
      } else if (roll == 2 && shape.suspect_offsets) {
        client.offset_sums.push_back({t, one_in(2) ? end + pick<std::int64_t>(1, 100) : -pick<std::int64_t>(3, 9)});
      }
    }
  }
  c.finalize();

  AssignmentSettings& s = g.settings;
  s.num_standby_replicas = pick<std::uint32_t>(0, shape.max_standbys);
  s.max_warmup_replicas = pick<std::uint32_t>(1, shape.max_warmups);
  const std::int64_t lags[] = {0, 100, 10000, 150000};
  s.acceptable_recovery_lag = lags[pick(0, 3)];
  if (racks > 0) {
    const RackAwareStrategy strategies[] = {RackAwareStrategy::none, RackAwareStrategy::min_traffic,
                                            RackAwareStrategy::balance_subtopology};
    s.rack_aware.strategy = strategies[pick(0, 2)];
    if (tags) s.rack_aware.tags = {"zone", "cluster"};
    if (one_in(4)) s.rack_aware.traffic_cost = pick<std::int64_t>(0, 20);
    if (one_in(4)) s.rack_aware.non_overlap_cost = pick<std::int64_t>(0, 20);
  }
  return g;
}

void list(std::ostream& os, const Cluster& c, const char* key, const std::vector<TaskIndex>& tasks) {
  if (tasks.empty()) return;
  os << ", " << key << ": [";
  for (std::size_t i = 0; i < tasks.size(); ++i) os << (i ? ", " : "") << to_string(c.tasks[tasks[i]].id);
  os << "]";
}

}  // namespace

rc::Gen<Group> gen_group(GroupShape shape) {
  return rc::gen::exec([shape] { return make_group(shape); });
}

void showValue(const Group& g, std::ostream& os) {
  const Cluster& c = g.cluster;
  const AssignmentSettings& s = g.settings;
  os << "settings: {num_standby_replicas: " << s.num_standby_replicas
     << ", max_warmup_replicas: " << s.max_warmup_replicas
     << ", acceptable_recovery_lag: " << s.acceptable_recovery_lag;
  if (!s.rack_aware.tags.empty()) os << ", tags: [zone, cluster]";
  os << ", rack_aware.strategy: " << static_cast<int>(s.rack_aware.strategy) << "}\n";
  os << "end_offsets_known: " << (c.end_offsets_known ? "true" : "false") << "\ntasks:\n";
  for (const Task& t : c.tasks) {
    os << "  - {id: " << to_string(t.id);
    for (const Store& store : t.stores)
      os << ", " << store.name << (store.logged ? ": end " + std::to_string(store.changelog_end_offset) : "");
    if (t.weight != 1.0) os << ", weight: " << t.weight;
    for (const PartitionRef& p : t.partitions) {
      os << ", racks of " << p.topic << "-" << p.partition << ": [";
      for (std::size_t i = 0; i < p.racks.size(); ++i) os << (i ? ", " : "") << c.racks[p.racks[i]];
      os << "]";
    }
    os << "}\n";
  }
  os << "clients:\n";
  for (const Client& client : c.clients) {
    os << "  - {id: " << client.id << ", threads: " << client.threads;
    if (client.rack != kNoRack) os << ", rack: " << c.racks[client.rack];
    for (const auto& [key, value] : client.tags) os << ", " << key << ": " << value;
    list(os, c, "previous_active", client.previous_active);
    list(os, c, "previous_standby", client.previous_standby);
    if (!client.offset_sums.empty()) {
      os << ", offset_sums: {";
      for (std::size_t i = 0; i < client.offset_sums.size(); ++i)
        os << (i ? ", " : "") << to_string(c.tasks[client.offset_sums[i].task].id) << ": " << client.offset_sums[i].sum;
      os << "}";
    }
    os << "}\n";
  }
}

}  // namespace assignor::testing
