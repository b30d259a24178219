// Kafka's TaskMovement step: keep stateful tasks on caught-up clients while the balanced placement
// wants them elsewhere, with warmups (KIP-441), exactly as Kafka 3.x does it.
//
// Active movements. For every client in id order and its actives in task order, an active whose
// client is not caught up, while the most caught-up client (by Kafka's lag order) has a lower lag,
// becomes a movement. Movements are handled in the order Kafka's priority queue hands them out:
// fewest caught-up clients first (the scarcest state is served first), then task order, and equal
// ones (standbys of one task) in the order of the queue's binary heap. For each movement:
//   a. the least-loaded caught-up client holding a standby of the task swaps roles with the
//      destination (no warmup spent);
//   b. else the least-loaded caught-up client takes the active, and the destination keeps a warmup
//      copy if the warmup budget allows;
//   c. else the first client in lag order ahead of the destination takes it (swap if it holds a
//      standby, else move + warmup as in b).
// Standby movements. Then every standby (not the warmups just placed) on a client that is not caught
// up while a more caught-up client exists moves, in the same kind of queue, to the least-loaded
// caught-up client without a copy, else to the first client in lag order ahead of it without a copy;
// the old holder keeps a warmup copy while the budget allows.
// Load is tasks held (actives + standbys + warmups) / threads, ties by client id. The budget,
// max_warmup_replicas, is shared by both kinds and is spent by every move in b, c and the standby
// movements whether or not it is left (Kafka's getAndDecrement). Any movement scheduled means the
// balanced placement is not reached yet: Kafka then asks for a probing rebalance.
#pragma once

#include <assignor/assignment.hpp>

#include <cstdint>

#include "kafka_ha/kafka_lags.hpp"

namespace assignor::plugins::kafka_ha {

struct Movements {
  std::uint64_t active = 0;   // active movements scheduled
  std::uint64_t standby = 0;  // standby movements that found a more caught-up client
  bool probing_rebalance_needed() const noexcept { return active + standby > 0; }
};

Movements assign_task_movements(const Cluster& cluster, const KafkaLags& lags, AssignmentDraft& draft,
                                std::uint32_t max_warmup_replicas);

}  // namespace assignor::plugins::kafka_ha
