// Distribution of each client's tasks over its threads, computed by the SDK for every strategy.
//
// Kafka Streams assigns each client's tasks to its stream threads (consumers) as well. Per client,
// in three passes that share one per-thread load: stateful actives, then standbys and warmups, then
// stateless actives. In each pass the per-thread minimum is floor(all tasks so far / threads);
// stateful tasks first go back to the thread that held them before (in order of that thread's lag
// on them, then task order) up to the minimum; the rest are dealt in task order to threads below
// the minimum; extras go to their previous thread if it is at the minimum, else to the least-loaded
// thread. The per-thread count stays within one across all three kinds.
//
// Threads that end up holding nothing are left out (a client with 1,000 threads and one task has
// one entry), so the distribution, and every output written from it, grows with what is assigned,
// not with the thread count.
//
//   ThreadDistribution d = distribute_over_threads(cluster, lags, assignment);
//   for (const ThreadTasks& th : d.clients[c].threads)  // the threads of client c that hold tasks
//     th.index, th.name, th.active ...                 // in thread order
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"

namespace assignor {

struct ThreadTasks {
  std::string name;                // from the cluster file's previous_by_thread, else "t<i>"
  std::vector<TaskIndex> active;   // in task order
  std::vector<TaskIndex> standby;  // in task order
  std::vector<TaskIndex> warmup;   // in task order
  std::uint32_t index = 0;         // position among the client's threads (thread_names order)
  std::size_t load() const noexcept { return active.size() + standby.size() + warmup.size(); }
};

struct ClientThreads {
  // The threads that hold at least one task, in thread order (named ones first, in file order,
  // then t0, t1, ...); a thread that is not listed holds nothing.
  std::vector<ThreadTasks> threads;
  std::uint32_t thread_count = 0;  // the client's threads, listed or not
};

struct ThreadDistribution {
  std::vector<ClientThreads> clients;  // by ClientIndex
};

// `assignment` must be valid. When its placements name their threads (Placement::thread: the
// strategy chose them, as Kafka's KIP-1071 assignors choose members), that split is returned as is;
// otherwise the SDK distributes each client's tasks as described above.
ThreadDistribution distribute_over_threads(const Cluster& cluster, const LagModel& lags, const Assignment& assignment);

// max over clients of (max - min tasks held by one of its threads; a thread left out holds 0).
std::size_t thread_load_spread(const ThreadDistribution& distribution) noexcept;

// The thread names of a client: previous_by_thread's names in file order, then "t0", "t1", ...
// (skipping names already taken) up to `threads`.
std::vector<std::string> thread_names(const Client& client);

}  // namespace assignor
