#include "kip1071/kip1071_group.hpp"

#include <assignor/java_order.hpp>
#include <assignor/threads.hpp>

#include <algorithm>

namespace assignor::plugins::kip1071 {

namespace {

template <class Item>
void flatten(const std::vector<std::vector<Item>>& per_member, std::vector<std::uint32_t>& begin,
             std::vector<Item>& flat) {
  begin.assign(per_member.size() + 1, 0);
  for (std::size_t m = 0; m < per_member.size(); ++m)
    begin[m + 1] = begin[m] + static_cast<std::uint32_t>(per_member[m].size());
  flat.clear();
  flat.reserve(begin.back());
  for (const auto& list : per_member) flat.insert(flat.end(), list.begin(), list.end());
}

}  // namespace

Group build_group(const Cluster& cluster) {
  Group g;
  const std::size_t n_clients = cluster.client_count();
  g.member_begin.assign(n_clients + 1, 0);
  for (ClientIndex c = 0; c < n_clients; ++c) g.member_begin[c + 1] = g.member_begin[c] + cluster.clients[c].threads;
  const std::size_t n_members = g.member_begin.back();
  g.client_of.resize(n_members);
  g.member_id.resize(n_members);
  g.member_id_hash.resize(n_members);
  g.client_id_hash.resize(n_clients);
  std::vector<std::vector<TaskIndex>> active(n_members), standby(n_members);
  std::vector<std::vector<ReportedOffset>> offsets(n_members);

  std::vector<std::uint32_t> load;
  std::vector<std::uint32_t> holder;  // per task of this client: the thread, or UINT32_MAX
  for (ClientIndex c = 0; c < n_clients; ++c) {
    const Client& client = cluster.clients[c];
    const MemberIndex first = g.member_begin[c];
    const std::uint32_t threads = client.threads;
    g.client_id_hash[c] = java_string_hash(client.id);
    const std::vector<std::string> names = thread_names(client);
    for (std::uint32_t th = 0; th < threads; ++th) {
      const MemberIndex m = first + th;
      g.client_of[m] = c;
      g.member_id[m] = th < client.threads_history.size() ? names[th] : client.id + "/" + names[th];
      g.member_id_hash[m] = java_string_hash(g.member_id[m]);
    }
    // What the named threads held, then the rest dealt to the thread holding fewest.
    load.assign(threads, 0);
    auto on_thread = [&](TaskIndex t) -> std::uint32_t {
      for (std::uint32_t th = 0; th < client.threads_history.size() && th < threads; ++th) {
        const auto& h = client.threads_history[th];
        if (std::binary_search(h.previous_active.begin(), h.previous_active.end(), t) ||
            std::binary_search(h.previous_standby.begin(), h.previous_standby.end(), t))
          return th;
      }
      return UINT32_MAX;
    };
    for (std::uint32_t th = 0; th < client.threads_history.size() && th < threads; ++th) {
      const auto& h = client.threads_history[th];
      active[first + th] = h.previous_active;
      standby[first + th] = h.previous_standby;
      load[th] = static_cast<std::uint32_t>(h.previous_active.size() + h.previous_standby.size());
    }
    auto deal = [&](const std::vector<TaskIndex>& tasks, std::vector<std::vector<TaskIndex>>& into) {
      for (TaskIndex t : tasks) {
        if (!client.threads_history.empty() && on_thread(t) != UINT32_MAX) continue;
        const auto th = static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
        into[first + th].push_back(t);
        ++load[th];
      }
    };
    deal(client.previous_active, active);
    deal(client.previous_standby, standby);
    for (std::uint32_t th = 0; th < threads; ++th) {
      std::sort(active[first + th].begin(), active[first + th].end());
      std::sort(standby[first + th].begin(), standby[first + th].end());
    }
    // Offsets: to the thread that held the task, else round-robin over the threads in task order.
    std::uint32_t next = 0;
    for (const OffsetSum& s : client.offset_sums) {
      if (s.sum == kRunningOffsetSum) continue;
      std::uint32_t th = UINT32_MAX;
      for (std::uint32_t k = 0; k < threads && th == UINT32_MAX; ++k) {
        const auto& a = active[first + k];
        const auto& b = standby[first + k];
        if (std::binary_search(a.begin(), a.end(), s.task) || std::binary_search(b.begin(), b.end(), s.task)) th = k;
      }
      if (th == UINT32_MAX) th = next++ % threads;
      offsets[first + th].push_back({s.task, s.sum});
    }
  }
  flatten(active, g.active_begin, g.previous_active);
  flatten(standby, g.standby_begin, g.previous_standby);
  flatten(offsets, g.offset_begin, g.offsets);

  // The coordinator's members map: a java.util.HashMap of member ids.
  JavaHashOrder members;
  for (MemberIndex m = 0; m < n_members; ++m) members.put(m, g.member_id_hash[m]);
  g.member_order = members.order();
  return g;
}

TaskIdKeys::TaskIdKeys(const Cluster& cluster) {
  std::vector<std::int32_t> ids = cluster.subtopologies();
  std::sort(ids.begin(), ids.end(),
            [](std::int32_t a, std::int32_t b) { return compare_subtopology_ids_as_strings(a, b) < 0; });
  by_subtopology.resize(cluster.task_count());
  by_partition.resize(cluster.task_count());
  for (std::uint64_t rank = 0; rank < ids.size(); ++rank)
    for (TaskIndex t : cluster.tasks_of_subtopology(ids[rank])) {
      const auto partition = static_cast<std::uint64_t>(static_cast<std::uint32_t>(cluster.tasks[t].id.partition));
      by_subtopology[t] = rank << 32 | partition;
      by_partition[t] = partition << 32 | rank;
    }
}

}  // namespace assignor::plugins::kip1071

namespace assignor::plugins::kip1071 {

void name_threads(const Group& group, MemberChoice choice, Assignment& out) {
  // The chosen standby members per task (counting sort by task).
  std::vector<std::uint32_t> at(choice.active.size() + 1, 0);
  for (const auto& [t, m] : choice.standbys)
    if (t < choice.active.size()) ++at[t + 1];
  for (std::size_t t = 0; t + 1 < at.size(); ++t) at[t + 1] += at[t];
  const std::vector<std::uint32_t> begin(at.begin(), at.end());
  std::vector<MemberIndex> standby_member(at.back());
  for (const auto& [t, m] : choice.standbys)
    if (t < choice.active.size()) standby_member[at[t]++] = m;
  std::vector<std::uint32_t> held(group.member_count(), 0);
  auto least_loaded = [&](ClientIndex c) {
    MemberIndex best = group.member_begin[c];
    for (MemberIndex m = best + 1; m < group.member_begin[c + 1]; ++m)
      if (held[m] < held[best]) best = m;
    return best;
  };
  auto place = [&](Placement& p, MemberIndex m) {
    if (m == kNoMember || group.client_of[m] != p.client) m = least_loaded(p.client);
    p.thread = group.thread_of(m);
    ++held[m];
  };
  for (Placement& p : out.actives) place(p, p.task < choice.active.size() ? choice.active[p.task] : kNoMember);
  for (Placement& p : out.standbys) {
    MemberIndex chosen = kNoMember;
    if (p.task < choice.active.size())
      for (std::uint32_t k = begin[p.task]; k < begin[p.task + 1]; ++k)
        if (group.client_of[standby_member[k]] == p.client) chosen = standby_member[k];
    place(p, chosen);
  }
  for (Placement& p : out.warmups) place(p, kNoMember);
}

}  // namespace assignor::plugins::kip1071
