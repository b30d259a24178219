#include "kafka_ha/task_movement.hpp"

#include <vector>

#include "kafka_ha/balance_over_threads.hpp"

namespace assignor::plugins::kafka_ha {

namespace {

struct Movement {
  std::size_t caught_up;  // size of the task's caught-up set
  TaskIndex task;
  ClientIndex destination;
};

// Kafka's movement queue, a java.util.PriorityQueue ordered by (caught-up clients, task): the
// movements in the order Kafka polls them. Movements that compare equal (standby copies of one task
// on several clients) come out in the order of the queue's binary heap, so when there are any this
// replays its sift-up on offer and sift-down on poll exactly; otherwise the poll order is simply
// the sorted order.
std::vector<Movement> in_poll_order(std::vector<Movement> heap, std::size_t tasks, std::size_t clients) {
  auto greater = [](const Movement& a, const Movement& b) {  // comparator(a, b) > 0
    return a.caught_up != b.caught_up ? a.caught_up > b.caught_up : a.task > b.task;
  };
  // One movement per task (always for actives): sorted order, by two stable counting sorts (by
  // task, then by caught-up count), O(movements + tasks + clients).
  std::vector<std::uint32_t> per_task(tasks + 1, 0);
  bool unique = true;
  for (const Movement& m : heap) unique = unique && ++per_task[m.task + 1] == 1;
  if (unique) {
    std::vector<Movement> by_task(heap.size());
    for (std::size_t t = 0; t < tasks; ++t) per_task[t + 1] += per_task[t];
    for (const Movement& m : heap) by_task[per_task[m.task]] = m;
    std::vector<std::size_t> next(clients + 2, 0);
    for (const Movement& m : by_task) ++next[m.caught_up + 1];
    for (std::size_t c = 0; c + 1 < next.size(); ++c) next[c + 1] += next[c];
    for (const Movement& m : by_task) heap[next[m.caught_up]++] = m;
    return heap;
  }
  for (std::size_t k = 0; k < heap.size(); ++k) {  // offer(heap[k]): sift up while the parent is greater
    const Movement x = heap[k];
    std::size_t i = k;
    while (i > 0 && greater(heap[(i - 1) / 2], x)) {
      heap[i] = heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    heap[i] = x;
  }
  std::vector<Movement> polled;
  polled.reserve(heap.size());
  for (std::size_t n = heap.size(); n > 0;) {  // poll(): take the root, sift the last element down
    polled.push_back(heap[0]);
    const Movement x = heap[--n];
    std::size_t i = 0;
    while (i < n / 2) {
      std::size_t child = 2 * i + 1;
      if (child + 1 < n && greater(heap[child], heap[child + 1])) ++child;
      if (!greater(x, heap[child])) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = x;
  }
  return polled;
}

// Kafka's ConstrainedPrioritySet.poll over the caught-up clients: the least loaded satisfying `ok`
// (load = tasks held / threads, ties by client id). Every client is always in Kafka's queue when it
// polls (each poll is followed by offering the polled clients back), so this is the minimum.
template <class Pred>
ClientIndex least_loaded_caught_up(const KafkaLags& lags, const AssignmentDraft& draft, TaskIndex t, Pred&& ok) {
  ClientIndex best = kNoClient;
  lags.for_each_caught_up(t, [&](ClientIndex c) {
    if (!ok(c)) return;
    if (best == kNoClient) {
      best = c;
      return;
    }
    const int cmp = compare_load(draft.total_count(c), draft.threads(c), draft.total_count(best), draft.threads(best));
    if (cmp < 0 || (cmp == 0 && c < best)) best = c;
  });
  return best;
}

// taskIsNotCaughtUpOnClientAndOtherMoreCaughtUpClientsExist
bool needs_movement(const KafkaLags& lags, TaskIndex t, ClientIndex c) {
  return !lags.caught_up(t, c) && lags.lag(t, lags.most_caught_up(t)) < lags.lag(t, c);
}

}  // namespace

Movements assign_task_movements(const Cluster& cluster, const KafkaLags& lags, AssignmentDraft& draft,
                                std::uint32_t max_warmup_replicas) {
  Movements result;
  std::int64_t remaining_warmups = max_warmup_replicas;  // may go negative, like Kafka's counter
  auto take_warmup = [&] { return remaining_warmups-- > 0; };
  auto is_logged = [&](TaskIndex t) { return cluster.tasks[t].has_logged_store; };

  // Active movements.
  std::vector<Movement> active_queue;
  const TasksByClient actives = tasks_by_client(draft, BalancedRole::active);
  for (ClientIndex c = 0; c < actives.size(); ++c)
    for (TaskIndex t : actives[c])
      if (is_logged(t) && needs_movement(lags, t, c)) active_queue.push_back({lags.caught_up_count(t), t, c});
  result.active = active_queue.size();
  for (const Movement& m : in_poll_order(std::move(active_queue), cluster.task_count(), cluster.client_count())) {
    const TaskIndex t = m.task;
    const ClientIndex dest = m.destination;
    ClientIndex source =
        least_loaded_caught_up(lags, draft, t, [&](ClientIndex c) { return draft.role(t, c) == Role::standby; });
    if (source == kNoClient) {
      source = least_loaded_caught_up(lags, draft, t, [](ClientIndex) { return true; });
      if (source == kNoClient) source = lags.first_ahead_of(t, dest, [](ClientIndex) { return true; });
      if (source == kNoClient) continue;  // cannot happen: a movement exists only if one is ahead
    }
    if (draft.role(t, source) == Role::standby) {
      draft.swap_roles(t, source, dest);
    } else {
      draft.set_active(t, source);
      if (take_warmup()) draft.add_warmup(t, dest);
    }
  }

  // Standby movements (the warmups just placed are not standbys in the draft: they never move).
  std::vector<Movement> standby_queue;
  const TasksByClient standbys = tasks_by_client(draft, BalancedRole::standby);
  for (ClientIndex c = 0; c < standbys.size(); ++c)
    for (TaskIndex t : standbys[c])
      if (needs_movement(lags, t, c)) standby_queue.push_back({lags.caught_up_count(t), t, c});
  for (const Movement& m : in_poll_order(std::move(standby_queue), cluster.task_count(), cluster.client_count())) {
    const TaskIndex t = m.task;
    const ClientIndex dest = m.destination;
    auto eligible = [&](ClientIndex c) { return !draft.holds(t, c); };
    ClientIndex source = least_loaded_caught_up(lags, draft, t, eligible);
    if (source == kNoClient) source = lags.first_ahead_of(t, dest, eligible);
    if (source == kNoClient) continue;
    draft.remove_standby(t, dest);
    draft.add_standby(t, source);
    if (take_warmup()) draft.add_warmup(t, dest);
    ++result.standby;
  }
  return result;
}

}  // namespace assignor::plugins::kafka_ha
