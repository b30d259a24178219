// A cluster file as Kafka's KIP-1071 group coordinator sees it (DESIGN 2, "Identity in Kafka's terms"):
// each client is a process (its id as is), each of its threads a member. Shared by the two KIP-1071
// strategies (streams_sticky, streams_balanced), which must feed Kafka's rules exactly what Kafka's
// coordinator would hold:
//   - member ids: the thread's name in previous_by_thread, else "<client id>/<thread name>"
//     (thread names as threads.hpp gives them: t0, t1, ...);
//   - what each member held: its previous_by_thread lists; the client's previous tasks that no named
//     thread lists are dealt, actives then standbys, each in task order, to the thread holding fewest
//     so far (ties: the lower thread);
//   - the offsets each member reports (running tasks, -2, are not sent): a task's offset sum goes to
//     the member that held it, and the sums of tasks the client holds no copy of go to its threads
//     round-robin in task order;
//   - the members in the coordinator's java.util.HashMap order (member ids put in client and thread
//     order), since Kafka iterates them there.
// Built once, O(members + tasks held); members are dense indices, so the strategies' hot loops
// touch no strings.
#pragma once

#include <assignor/assignment.hpp>
#include <assignor/model.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace assignor::plugins::kip1071 {

using MemberIndex = std::uint32_t;
inline constexpr MemberIndex kNoMember = std::numeric_limits<MemberIndex>::max();

struct ReportedOffset {
  TaskIndex task;
  std::int64_t offset_sum;
};

struct Group {
  // Members of client c: [member_begin[c], member_begin[c + 1]); member m is thread
  // m - member_begin[c] of its client (an index into thread_names()).
  std::vector<MemberIndex> member_begin;
  std::vector<ClientIndex> client_of;        // by member
  std::vector<std::string> member_id;        // by member
  std::vector<std::int32_t> member_id_hash;  // String.hashCode() of member_id
  std::vector<std::int32_t> client_id_hash;  // by client: String.hashCode() of the process id
  std::vector<MemberIndex> member_order;     // groupSpec.memberIds(): Java HashMap order

  // What each member held and reports (flat, per member [begin[m], begin[m + 1])), tasks in order.
  std::vector<std::uint32_t> active_begin, standby_begin, offset_begin;
  std::vector<TaskIndex> previous_active, previous_standby;
  std::vector<ReportedOffset> offsets;

  std::size_t member_count() const noexcept { return client_of.size(); }
  std::uint32_t thread_of(MemberIndex m) const noexcept { return m - member_begin[client_of[m]]; }
};

Group build_group(const Cluster& cluster);

// Kafka's TaskId order as integer keys, computed once: per task, the rank of its sub-topology id
// among the cluster's ids compared as strings (Kafka's sub-topology ids are strings: "10" < "2").
// by_subtopology: (rank, partition); by_partition: (partition, rank).
struct TaskIdKeys {
  std::vector<std::uint64_t> by_subtopology, by_partition;
  explicit TaskIdKeys(const Cluster& cluster);
};

}  // namespace assignor::plugins::kip1071

namespace assignor::plugins::kip1071 {

// The members an assignor chose: per task the active's member (kNoMember for none), and the
// (task, member) of every standby.
struct MemberChoice {
  std::vector<MemberIndex> active;
  std::vector<std::pair<TaskIndex, MemberIndex>> standbys;
};

// Sets Placement::thread on every placement of `out`: the member the assignor chose where the
// placement is its own (same task, client and role); a placement made after it (by the KIP-1071
// refiner: a warmup, a moved task) goes to its client's member holding fewest tasks so far, ties
// to the lower thread.
void name_threads(const Group& group, MemberChoice choice, Assignment& out);

}  // namespace assignor::plugins::kip1071
