// Kafka Streams' LegacyStickyTaskAssignor (the pre-KIP-441 sticky assignor), as Kafka's code runs it
// (apache/kafka streams/.../internals/assignment/LegacyStickyTaskAssignor.java, October 2024), tie
// for tie: shared by `sticky` and `fallback_prior` (Kafka's FallbackPriorTaskAssignor is this with
// every previous active preserved).
//
// Clients are Kafka's processes, in Kafka's order (the caller runs this in kafka_identity.hpp's
// client order, so client index = rank of the process id); what Kafka knows of them is what a
// client reports: previous actives (its previous_active, and the tasks it reports as running, -2)
// and previous standbys (every other task it reports an offset sum for, or lists as a standby).
//
//   1. tasksPerThread = all tasks / all threads (integer division). Every previous active, in the
//      HashMap order of Kafka's previous-assignment map, goes back to its client while the client
//      runs fewer than threads x tasksPerThread actives (always, with preserve_previous_actives).
//   2. Every task still unassigned, in HashSet order, goes to the first of its previous standby
//      holders (HashSet order) under that quota.
//   3. The rest, in task order, go where Kafka's findClient puts them: the previous owner, else the
//      least-loaded previous standby holder, unless that client has reached its capacity (tasks
//      held >= threads) while another client has more room, in which case the least-loaded standby
//      holder or else the least-loaded client; "least loaded" takes a client with no task at once,
//      else the lowest tasks per thread (ties: more threads, then iteration order) among clients
//      that would get a task pair they do not have yet (Kafka's TaskPairs), else among all.
//   4. Standbys: every task with a changelog, in HashSet order, num_standby_replicas times: findClient
//      among the clients without the task (HashSet order); none left -> fewer standbys.
// No lags, no warmups. Where Kafka iterates a HashMap or HashSet the order is Java's
// (assignor/java_order.hpp), so the answer is Kafka's answer.
#pragma once

#include <assignor/assignment.hpp>
#include <assignor/model.hpp>
#include <assignor/strategy.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace assignor::plugins::legacy_sticky {

enum class Step : std::uint8_t { actives_placed, standbys_placed };

struct Options {
  bool preserve_previous_actives = false;  // FallbackPriorTaskAssignor
  // Called after the actives and after the standbys are placed: where Kafka runs its rack-aware
  // optimisation (sticky passes Kafka's RackAwareTaskAssignor; fallback_prior nothing).
  std::function<void(AssignmentDraft&, Step)> between_steps;
};

// `process_hash[c]`: ProcessId.hashCode() of client c (UUID.hashCode of its process id).
void assign(const Cluster& cluster, const std::vector<std::int32_t>& process_hash, const Options& options,
            AssignmentDraft& draft);

// The whole assignor as `sticky` and `fallback_prior` run it. Kafka's client-side assignors see the
// clients in process-id order (Java's UUID order when the ids are UUIDs, as in an imported group),
// so it runs on the input renumbered in that order (assign_in_kafka_client_order), with the options
// `options_for` gives for that input, and the result is finished with `probing_rebalance`.
Assignment assign_in_kafka_order(const AssignmentInput& in, bool probing_rebalance,
                                 const std::function<Options(const AssignmentInput&)>& options_for);

// The process ids' hash codes of a cluster handed over by assign_in_kafka_client_order: the UUID
// of every client when all ids are UUIDs (a rank prefix "0003:" in front of them is skipped), else
// UUID(0, rank), whose hash code is the rank.
std::vector<std::int32_t> process_id_hashes(const Cluster& cluster);

}  // namespace assignor::plugins::legacy_sticky
