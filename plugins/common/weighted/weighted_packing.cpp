#include "weighted/weighted_packing.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

#include <assignor/balance.hpp>

namespace assignor::plugins::weighted {

namespace {

// A task on a client, for pass 3: by weight, stateless first among equals, then task order.
struct Held {
  double weight;
  bool stateful;
  TaskIndex task;
  friend bool operator<(const Held& a, const Held& b) {
    if (a.weight != b.weight) return a.weight < b.weight;
    if (a.stateful != b.stateful) return !a.stateful;
    return a.task < b.task;
  }
};

// The three passes over the tasks without an active that `in_class` accepts; the actives already
// in the draft count towards their client's weight, tasks outside the class not yet placed do not.
void place_class(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft, bool (*in_class)(const Task&),
                 WeightedTargetResult& result) {
  const std::size_t n = cluster.client_count();
  const std::vector<std::uint32_t> threads = client_threads(cluster);
  const auto all_threads = static_cast<double>(cluster.total_threads());
  const auto previous = cluster.previous_active_owner();

  std::vector<double> load(n, 0.0);
  double total = 0;
  std::vector<TaskIndex> open;
  for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
    const double w = cluster.tasks[t].weight;
    result.largest_weight = std::max(result.largest_weight, w);
    if (draft.active(t) != kNoClient)
      load[draft.active(t)] += w;
    else if (in_class(cluster.tasks[t]))
      open.push_back(t);
    else
      continue;
    total += w;
  }
  // "At most the target T = total / all_threads per thread", cross-multiplied.
  auto within_target = [&](ClientIndex c, double after) {
    return after * all_threads <= total * static_cast<double>(threads[c]);
  };
  // A stateful task may stay with (or go back to) a client that is caught up on it, or to any
  // client when nobody is: then no client is better placed.
  auto may_keep = [&](TaskIndex t, ClientIndex c) {
    const Task& task = cluster.tasks[t];
    if (!task.stateful || lags.everyone_caught_up(t)) return true;
    return lags.caught_up(t, c) || lags.caught_up_count(t) == 0;
  };

  // Pass 1: previous owners keep their tasks within the target: stateful first, lightest first.
  struct Keep {
    ClientIndex client;
    bool stateless;
    double weight;
    TaskIndex task;
  };
  std::vector<Keep> keeps;
  for (TaskIndex t : open) {
    const ClientIndex prev = previous[t];
    if (prev != kNoClient && may_keep(t, prev))
      keeps.push_back({prev, !cluster.tasks[t].stateful, cluster.tasks[t].weight, t});
  }
  std::sort(keeps.begin(), keeps.end(), [](const Keep& a, const Keep& b) {
    if (a.client != b.client) return a.client < b.client;
    if (a.stateless != b.stateless) return !a.stateless;
    if (a.weight != b.weight) return a.weight < b.weight;
    return a.task < b.task;
  });
  for (const Keep& k : keeps) {
    if (!within_target(k.client, load[k.client] + k.weight)) continue;
    draft.set_active(k.task, k.client);
    load[k.client] += k.weight;
    ++result.kept_previous;
  }

  // Pass 2: the rest, heaviest first, to the least loaded (or a sticky / caught-up client that ends
  // no higher than max(T, the least loaded would)).
  std::vector<TaskIndex> rest;
  for (TaskIndex t : open)
    if (draft.active(t) == kNoClient) rest.push_back(t);
  std::sort(rest.begin(), rest.end(), [&](TaskIndex a, TaskIndex b) {
    const double wa = cluster.tasks[a].weight, wb = cluster.tasks[b].weight;
    return wa != wb ? wa > wb : a < b;
  });
  WeightedLoadQueue queue(threads, load);
  for (TaskIndex t : rest) {
    const double w = cluster.tasks[t].weight;
    const ClientIndex least = queue.least();
    const double least_after = queue.weight(least) + w;
    auto acceptable = [&](ClientIndex c) {
      const double after = queue.weight(c) + w;
      return within_target(c, after) || compare_weight_load(after, threads[c], least_after, threads[least]) <= 0;
    };
    ClientIndex choice = kNoClient;
    const ClientIndex prev = previous[t];
    if (prev != kNoClient && may_keep(t, prev) && acceptable(prev)) {
      choice = prev;
      ++result.back_to_previous;
    } else if (cluster.tasks[t].stateful && !lags.everyone_caught_up(t)) {
      for (ClientIndex c : lags.caught_up_clients(t)) {
        if (!acceptable(c)) continue;
        if (choice == kNoClient) {
          choice = c;
          continue;
        }
        const int cmp = compare_weight_load(queue.weight(c), threads[c], queue.weight(choice), threads[choice]);
        if (cmp < 0 || (cmp == 0 && c < choice)) choice = c;
      }
      if (choice != kNoClient) ++result.to_caught_up;
    }
    if (choice == kNoClient) {
      choice = least;
      ++result.to_least_loaded;
    }
    draft.set_active(t, choice);
    queue.add(choice, w);
  }

  // Pass 3: while the most loaded client can hand one of the tasks placed here to the least loaded
  // and so lower the larger of their two loads, it hands over the one that lowers it most: the
  // lightest at or above the even split or the heaviest below it (among tasks of one weight, the
  // stateless first, then task order). Each move lowers the sorted vector of loads
  // lexicographically, so this ends; the cap only bounds the worst case.
  std::vector<std::set<Held>> held(n);
  for (TaskIndex t : open) held[draft.active(t)].insert({cluster.tasks[t].weight, cluster.tasks[t].stateful, t});
  for (std::size_t step = 0; step < open.size(); ++step) {
    const ClientIndex most = queue.most(), least = queue.least();
    if (most == least || held[most].empty()) break;
    const double w_most = queue.weight(most), w_least = queue.weight(least);
    const auto t_most = static_cast<double>(threads[most]), t_least = static_cast<double>(threads[least]);
    // The pair's larger load after moving weight w, and the weight that would even them out.
    auto larger_after = [&](double w) { return std::max((w_most - w) / t_most, (w_least + w) / t_least); };
    const double even = (w_most * t_least - w_least * t_most) / (t_most + t_least);
    const auto& tasks = held[most];
    const Held* best = nullptr;
    auto consider = [&](const Held& h) {
      // Worth it only if the least loaded stays strictly below where the most loaded was.
      if (compare_weight_load(w_least + h.weight, threads[least], w_most, threads[most]) >= 0) return;
      if (best == nullptr || larger_after(h.weight) < larger_after(best->weight)) best = &h;
    };
    const auto above = tasks.lower_bound(Held{even, false, 0});
    if (above != tasks.end()) consider(*above);
    if (above != tasks.begin()) {
      // The first task of the next lighter weight (stateless first among equals).
      consider(*tasks.lower_bound(Held{std::prev(above)->weight, false, 0}));
    }
    if (best == nullptr) break;
    const Held moved = *best;
    held[most].erase(moved);
    held[least].insert(moved);
    queue.add(most, -moved.weight);
    queue.add(least, moved.weight);
    draft.set_active(moved.task, least);
    ++result.moved_to_balance;
  }
}

}  // namespace

WeightedTargetResult place_weighted_actives(const Cluster& cluster, const LagModel& lags, AssignmentDraft& draft) {
  WeightedTargetResult result;
  if (cluster.client_count() == 0) return result;
  // The tasks with a changelog first, balanced by their own weight (the work that restores is
  // spread by itself, DESIGN 4.6), then every other task filling up to the balance of the total.
  place_class(
      cluster, lags, draft, [](const Task& t) { return t.has_logged_store; }, result);
  place_class(
      cluster, lags, draft, [](const Task&) { return true; }, result);
  return result;
}

}  // namespace assignor::plugins::weighted
