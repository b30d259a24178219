#include "kafka_ha/balance_over_threads.hpp"

#include <algorithm>

namespace assignor::plugins::kafka_ha {

namespace {

// Per client, the load it would have after receiving one task: (held + 1) / threads. A min segment
// tree answers "the first client at or after i whose value is at most x".
class ReceiveLoadTree {
 public:
  explicit ReceiveLoadTree(const AssignmentDraft& draft) : draft_(draft), n_(draft.client_count()) {
    size_ = 1;
    while (size_ < n_) size_ *= 2;
    best_.assign(2 * size_, kNoClient);
    for (ClientIndex c = 0; c < n_; ++c) best_[size_ + c] = c;
    for (std::size_t i = size_ - 1; i > 0; --i) best_[i] = min_of(best_[2 * i], best_[2 * i + 1]);
  }

  void update(ClientIndex c) {
    for (std::size_t i = (size_ + c) / 2; i > 0; i /= 2) best_[i] = min_of(best_[2 * i], best_[2 * i + 1]);
  }

  // First client >= from with (held + 1) / threads <= num / den; kNoClient if none.
  ClientIndex first_at_most(ClientIndex from, std::uint64_t num, std::uint64_t den) const {
    if (from >= n_) return kNoClient;
    return find(1, 0, size_ - 1, from, num, den);
  }

 private:
  bool at_most(ClientIndex c, std::uint64_t num, std::uint64_t den) const {
    return compare_load(draft_.total_count(c) + 1ull, draft_.threads(c), num, den) <= 0;
  }
  ClientIndex min_of(ClientIndex a, ClientIndex b) const {
    if (a == kNoClient) return b;
    if (b == kNoClient) return a;
    return compare_load(draft_.total_count(b) + 1ull, draft_.threads(b), draft_.total_count(a) + 1ull,
                        draft_.threads(a)) < 0
               ? b
               : a;
  }
  ClientIndex find(std::size_t node, std::size_t lo, std::size_t hi, ClientIndex from, std::uint64_t num,
                   std::uint64_t den) const {
    const ClientIndex best = best_[node];
    if (hi < from || best == kNoClient || !at_most(best, num, den)) return kNoClient;
    if (lo == hi) return best;
    const std::size_t mid = (lo + hi) / 2;
    const ClientIndex left = find(2 * node, lo, mid, from, num, den);
    return left != kNoClient ? left : find(2 * node + 1, mid + 1, hi, from, num, den);
  }

  const AssignmentDraft& draft_;
  std::size_t n_;
  std::size_t size_;
  std::vector<ClientIndex> best_;  // per node: the client of least (held + 1) / threads below it
};

}  // namespace

TasksByClient tasks_by_client(const AssignmentDraft& draft, BalancedRole role) {
  TasksByClient tasks(draft.client_count());
  for (TaskIndex t = 0; t < draft.task_count(); ++t) {
    if (role == BalancedRole::active) {
      if (draft.active(t) != kNoClient) tasks[draft.active(t)].push_back(t);
    } else {
      for (ClientIndex c : draft.standby_slots(t))
        if (c != kNoClient) tasks[c].push_back(t);
    }
  }
  return tasks;
}

std::uint64_t balance_tasks_over_threads(AssignmentDraft& draft, BalancedRole role, TasksByClient& tasks,
                                         const MovePredicate& allowed) {
  const auto n = static_cast<ClientIndex>(draft.client_count());
  ReceiveLoadTree tree(draft);
  auto should_move = [&](ClientIndex s, ClientIndex d) {
    return draft.total_count(s) > 0 && compare_load(draft.total_count(d) + 1ull, draft.threads(d),
                                                    draft.total_count(s) - 1ull, draft.threads(s)) <= 0;
  };
  auto move = [&](TaskIndex t, ClientIndex s, ClientIndex d) {
    if (role == BalancedRole::active) {
      draft.set_active(t, d);
    } else {
      draft.remove_standby(t, s);
      draft.add_standby(t, d);
    }
    auto& to = tasks[d];
    to.insert(std::lower_bound(to.begin(), to.end(), t), t);
    tree.update(s);
    tree.update(d);
  };

  std::uint64_t moves = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (ClientIndex s = 0; s < n; ++s) {
      for (ClientIndex from = 0; draft.total_count(s) > 0 && from < n;) {
        const ClientIndex d = tree.first_at_most(from, draft.total_count(s) - 1ull, draft.threads(s));
        if (d == kNoClient) break;
        from = d + 1;
        if (allowed && !allowed(s, d)) continue;
        auto& list = tasks[s];
        for (std::size_t i = 0; i < list.size() && should_move(s, d);) {
          const TaskIndex t = list[i];
          if (draft.holds(t, d)) {
            ++i;
            continue;
          }
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          move(t, s, d);
          ++moves;
          moved = true;
        }
      }
    }
  }
  return moves;
}

}  // namespace assignor::plugins::kafka_ha
