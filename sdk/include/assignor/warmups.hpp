// Warmup planning (KIP-441) for any strategy: keep stateful actives available while moving them.
//
// Given a draft whose actives are the *target* placement, plan_warmups() walks every stateful active
// whose target client is not caught up while a better client exists and, most constrained task
// first (fewest caught-up clients, then task order):
//   a. swaps roles with the least-loaded caught-up standby holder (costs no warmup), else
//   b. gives the active to the least-loaded caught-up client and leaves a warmup on the target, if
//      the warmup budget (max_warmup_replicas) allows, else
//   c. when nobody is caught up, gives it to the most caught-up client ahead of the target (swapping
//      with its standby if it holds one), with a warmup on the target if the budget allows.
// Then (move_standbys, the default) standbys on not-caught-up clients move to caught-up clients the
// same way, each leaving a warmup on its old holder while the budget lasts.
// Any movement means the target is not reached yet: a probing rebalance is needed.
//
// "Least loaded" is tasks held (active + standby + warmup) per thread, ties by client index. A
// strategy steers the choice with WarmupPlanOptions::candidate_cost: among the clients a step may
// pick (the caught-up standby holders in a, the caught-up clients in b, the caught-up clients
// without a copy for a standby), the lowest cost wins, then the least loaded, then the lowest
// index. Use it to keep the strategy's own target shape (sub-topology spread, racks, weights)
// while actives wait for their warmups; keep_on_current_owner is the common case built in.
// standby_cost prices the standby moves on their own (else candidate_cost prices both).
//
// Standby spread (standby_domains, standby_spread.hpp): standbys were placed against the target
// active, but an active kept on a caught-up client meanwhile runs elsewhere. With the domains given,
// that client is chosen outside the domains of the task's standbys when one is caught up (before
// cost and load); a standby moves only outside the running active's domain (other standbys'
// domains avoided first), and stays where it is when no such client is more caught up (a cold copy
// in another zone catches up there; a warm one beside the active would be lost with it); and a
// caught-up standby left in the running active's domain moves to a caught-up client of another
// domain when there is one, a cold one to any client of another domain (no warmup, no probing:
// standbys_respread).
//
// Call order: after the draft holds its target actives and its standbys (a caught-up standby is
// the cheapest way to keep an active available), before stateless tasks are placed (so that they
// fill around the actives as they will really run this round).
//
//   WarmupPlanOptions options;
//   options.candidate_cost = [&](TaskIndex t, ClientIndex c) { return actives_of_subtopology(c, t); };
//   const WarmupPlan plan = plan_warmups(cluster, settings, lags, draft, options);
#pragma once

#include <cstdint>
#include <functional>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/settings.hpp"
#include "assignor/standby_spread.hpp"

namespace assignor {

struct WarmupPlanOptions {
  // A standby on a client that is not caught up: true (Kafka's HA does it) moves it to a caught-up
  // client without a copy and leaves the old holder a warmup, from the same max_warmup_replicas
  // budget as the actives' warmups, with a probing rebalance; false leaves it to catch up where it
  // is, as a standby. With keep_on_current_owner the standbys placed for a target are often the
  // copies not caught up, so true costs about one more warmup per move: the guide's zone_guard
  // converges a 1,000-task scale-out in 19 rounds with true, 11 with false, whose price is
  // redundancy (docs/writing-a-strategy.md, "move_standbys").
  bool move_standbys = true;
  // Before a/b/c: when the task's previous active owner is caught up (it normally runs the task),
  // the active stays there (swapping roles if the owner holds a standby of it) and the target warms
  // up. Kafka instead gives it to the least-loaded caught-up client, often another one: a move that
  // brings the task no closer to its target.
  bool keep_on_current_owner = false;
  // Optional: the cost of giving task t (an active kept available, or a standby moved) to client c;
  // lower is preferred, before load. Called only for candidates a step may pick.
  std::function<std::int64_t(TaskIndex t, ClientIndex c)> candidate_cost;
  // Optional: the cost of moving a standby of task t to client c (instead of candidate_cost).
  std::function<std::int64_t(TaskIndex t, ClientIndex c)> standby_cost;
  // Optional: keep standbys out of the domain of the active that will run (see above). Not owned;
  // must outlive the call.
  const StandbyDomains* standby_domains = nullptr;
};

struct WarmupPlan {
  std::uint32_t active_movements = 0;   // actives kept away from their target
  std::uint32_t standby_movements = 0;  // standbys moved to a more caught-up client
  std::uint32_t warmups_placed = 0;
  std::uint32_t standbys_respread = 0;  // standbys moved out of the running active's domain (no probing)
  bool probing_rebalance_needed() const noexcept { return active_movements + standby_movements > 0; }
};

WarmupPlan plan_warmups(const Cluster& cluster, const AssignmentSettings& settings, const LagModel& lags,
                        AssignmentDraft& draft, const WarmupPlanOptions& options = {});

}  // namespace assignor
