#include "cluster_builder.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace assignor::testing {

namespace {

TaskId must_parse(const std::string& id) {
  auto parsed = parse_task_id(id);
  if (!parsed) throw std::invalid_argument("bad task id in test: " + id);
  return *parsed;
}

}  // namespace

ClusterBuilder& ClusterBuilder::stateful(const std::string& id, std::int64_t end_offset) {
  Task t;
  t.id = must_parse(id);
  t.stores.push_back({"store", true, end_offset});
  return task(std::move(t));
}

ClusterBuilder& ClusterBuilder::nonlogged(const std::string& id) {
  Task t;
  t.id = must_parse(id);
  t.stores.push_back({"memory", false, 0});
  return task(std::move(t));
}

ClusterBuilder& ClusterBuilder::mixed(const std::string& id, std::int64_t end_offset) {
  Task t;
  t.id = must_parse(id);
  t.stores.push_back({"logged", true, end_offset});
  t.stores.push_back({"memory", false, 0});
  return task(std::move(t));
}

ClusterBuilder& ClusterBuilder::stateless(const std::string& id) {
  Task t;
  t.id = must_parse(id);
  return task(std::move(t));
}

ClusterBuilder& ClusterBuilder::stateful_tasks(const std::vector<std::string>& ids, std::int64_t end_offset) {
  for (const auto& id : ids) stateful(id, end_offset);
  return *this;
}

ClusterBuilder& ClusterBuilder::stateless_tasks(const std::vector<std::string>& ids) {
  for (const auto& id : ids) stateless(id);
  return *this;
}

ClusterBuilder& ClusterBuilder::task(Task t) {
  tasks_.push_back(std::move(t));
  return *this;
}

ClusterBuilder& ClusterBuilder::weighted(const std::string& id, double weight, std::int64_t end_offset) {
  Task t;
  t.id = *parse_task_id(id);
  if (end_offset >= 0) t.stores.push_back({"store", true, end_offset});
  t.weight = weight;
  return task(std::move(t));
}

ClusterBuilder& ClusterBuilder::end_offsets_unknown() {
  end_offsets_known_ = false;
  return *this;
}

ClusterBuilder& ClusterBuilder::client(const std::string& id, std::uint32_t threads) {
  clients_.push_back({id, threads, {}, {}, {}, {}, {}});
  return *this;
}

ClusterBuilder& ClusterBuilder::one_previous_active_each(const std::vector<std::string>& ids,
                                                         const std::vector<std::string>& tasks) {
  if (ids.size() != tasks.size()) throw std::invalid_argument("one_previous_active_each: as many clients as tasks");
  for (std::size_t i = 0; i < ids.size(); ++i) client(ids[i]).previous_active({tasks[i]});
  return *this;
}

ClusterBuilder& ClusterBuilder::previous_active(const std::vector<std::string>& tasks) {
  clients_.back().previous_active = tasks;
  return *this;
}

ClusterBuilder& ClusterBuilder::previous_standby(const std::vector<std::string>& tasks) {
  clients_.back().previous_standby = tasks;
  return *this;
}

ClusterBuilder& ClusterBuilder::offsets(const std::vector<std::pair<std::string, std::int64_t>>& sums) {
  clients_.back().offsets = sums;
  return *this;
}

ClusterBuilder& ClusterBuilder::running_actives(const std::vector<std::string>& tasks) {
  clients_.back().previous_active = tasks;
  for (const auto& t : tasks) clients_.back().offsets.emplace_back(t, kRunningOffsetSum);
  return *this;
}

ClusterBuilder& ClusterBuilder::rack(const std::string& rack) {
  clients_.back().rack = rack;
  return *this;
}

ClusterBuilder& ClusterBuilder::tag(const std::string& key, const std::string& value) {
  clients_.back().tags[key] = value;
  return *this;
}

Cluster ClusterBuilder::build() const {
  Cluster cluster;
  cluster.end_offsets_known = end_offsets_known_;
  cluster.tasks = tasks_;
  std::map<TaskId, TaskIndex> index;
  for (TaskIndex i = 0; i < tasks_.size(); ++i) index[tasks_[i].id] = i;
  auto resolve = [&](const std::string& id) {
    auto it = index.find(must_parse(id));
    if (it == index.end()) throw std::invalid_argument("unknown task in test: " + id);
    return it->second;
  };
  std::map<std::string, RackIndex> racks;
  for (const auto& p : clients_) {
    Client c;
    c.id = p.id;
    c.threads = p.threads;
    c.tags = p.tags;
    if (!p.rack.empty()) {
      auto [it, inserted] = racks.emplace(p.rack, static_cast<RackIndex>(cluster.racks.size()));
      if (inserted) cluster.racks.push_back(p.rack);
      c.rack = it->second;
    }
    for (const auto& t : p.previous_active) c.previous_active.push_back(resolve(t));
    for (const auto& t : p.previous_standby) c.previous_standby.push_back(resolve(t));
    for (const auto& [t, sum] : p.offsets) c.offset_sums.push_back({resolve(t), sum});
    cluster.clients.push_back(std::move(c));
  }
  cluster.finalize();
  return cluster;
}

namespace {

std::vector<std::string> tasks_in(const Cluster& cluster, const std::vector<Placement>& list,
                                  const std::string& client) {
  auto c = cluster.find_client(client);
  if (!c) throw std::invalid_argument("unknown client in test: " + client);
  std::vector<TaskIndex> found;
  for (const auto& p : list)
    if (p.client == *c) found.push_back(p.task);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (TaskIndex t : found) out.push_back(to_string(cluster.tasks[t].id));
  return out;
}

}  // namespace

std::vector<std::string> actives_of(const Cluster& cluster, const Assignment& a, const std::string& client) {
  return tasks_in(cluster, a.actives, client);
}
std::vector<std::string> standbys_of(const Cluster& cluster, const Assignment& a, const std::string& client) {
  return tasks_in(cluster, a.standbys, client);
}
std::vector<std::string> warmups_of(const Cluster& cluster, const Assignment& a, const std::string& client) {
  return tasks_in(cluster, a.warmups, client);
}

std::string active_client_of(const Cluster& cluster, const Assignment& a, const std::string& task) {
  auto t = cluster.find_task(must_parse(task));
  if (!t) throw std::invalid_argument("unknown task in test: " + task);
  for (const auto& p : a.actives)
    if (p.task == *t) return cluster.clients[p.client].id;
  return "";
}

}  // namespace assignor::testing
