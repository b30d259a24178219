// The standby balancing pass shared by balance_standbys() (all clients, one group) and
// balance_standbys_within_tags() (each group of clients with equal tag values). Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/balance.hpp"
#include "assignor/model.hpp"

namespace assignor::detail {

// Each client's standbys, in task order.
inline std::vector<std::vector<TaskIndex>> standbys_by_client(const Cluster& cluster, const AssignmentDraft& draft) {
  std::vector<std::vector<TaskIndex>> held(cluster.client_count());
  for (TaskIndex t = 0; t < cluster.task_count(); ++t)
    for (ClientIndex c : draft.standby_slots(t))
      if (c != kNoClient) held[c].push_back(t);
  return held;
}

// Moves standbys inside one group of clients: while the group's most loaded client that is not
// stuck holds a standby that a lighter client of the group lacks, and the move leaves the source at
// least as loaded as the destination becomes, the standby it took last moves to the lightest such
// client. A source with nothing movable is stuck until the next move. Returns the moves made.
//   members: the group's clients ordered from least to most loaded (kept in order by loads.add);
//   loads: count(c), threads(c), add(c, delta); held: standbys_by_client(); stuck: per client.
template <class Members, class Loads>
std::uint64_t balance_standbys_in_group(const Members& members, Loads& loads, std::vector<std::vector<TaskIndex>>& held,
                                        std::vector<std::uint8_t>& stuck, AssignmentDraft& draft) {
  std::uint64_t moved = 0;
  for (;;) {
    ClientIndex source = kNoClient;
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if (!stuck[*it] && !held[*it].empty()) {
        source = *it;
        break;
      }
    if (source == kNoClient) return moved;
    // Chosen first, moved after: moving re-orders `members`, which the search walks.
    ClientIndex dest = kNoClient;
    std::size_t pick = 0;
    const std::vector<TaskIndex>& list = held[source];
    for (auto it = members.begin(); it != members.end() && *it != source && dest == kNoClient; ++it) {
      const ClientIndex d = *it;
      if (compare_load(loads.count(source) - 1ull, loads.threads(source), loads.count(d) + 1ull, loads.threads(d)) < 0)
        break;  // destinations only get heavier from here
      for (std::size_t i = list.size(); i-- > 0;)
        if (!draft.holds(list[i], d)) {
          dest = d;
          pick = i;
          break;
        }
    }
    if (dest == kNoClient) {
      stuck[source] = 1;
      continue;
    }
    const TaskIndex t = list[pick];
    draft.remove_standby(t, source);
    draft.add_standby(t, dest);
    held[source].erase(held[source].begin() + static_cast<std::ptrdiff_t>(pick));
    held[dest].push_back(t);
    loads.add(source, -1);
    loads.add(dest, 1);
    ++moved;
    for (ClientIndex c : members) stuck[c] = 0;
  }
}

}  // namespace assignor::detail
