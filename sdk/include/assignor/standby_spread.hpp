// Standbys in another failure domain than their active: diverse standby placement over racks or
// client tags, for any strategy.
//
// A client's domain: with tag keys (rack_aware.tags), its values for all of those keys (a client
// lacking one of them has no domain); without keys, its rack (none when it has no rack). Two
// clients are colocated when they share a domain. A standby colocated with its task's active is
// what the metric colocated_standbys counts (DESIGN 4.5): a copy that one zone outage loses
// together with the active.
//
// place_standbys_diverse() places the draft's missing standbys of every task with a logged store,
// in task order. Each copy goes to the least-loaded client (active + standby + warmup per thread,
// ties by index) that does not hold the task, taken from the first non-empty tier of:
//   1. clients outside the domains of the task's active and of its standbys placed so far,
//   2. clients outside the active's domain,
//   3. any client.
// With prefer_previous_holders, a previous holder of the task (standby, or previous active) in
// that tier comes before a less loaded client. Clients without a domain are never colocated, so
// without racks or tags this is place_standbys_least_loaded(). With tag keys it spreads over the
// combination of values; place_standbys_tag_aware() (tag_standbys.hpp) instead scores each key on
// its own, as Kafka's KIP-708 assignor does.
//
// To keep the spread while actives wait for their warmups, give the same StandbyDomains to
// plan_warmups (WarmupPlanOptions::standby_domains): the active that will run, not only the target,
// stays out of its standbys' domains.
//
//   const StandbyDomains domains(cluster, in.settings.rack_aware.tags);   // racks when no tags
//   place_standbys_diverse(cluster, domains, draft);
//   WarmupPlanOptions options;
//   options.standby_domains = &domains;
//   plan_warmups(cluster, in.settings, in.lags, draft, options);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"

namespace assignor {

class StandbyDomains {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Domains by the values of `tag_keys`, or by rack when `tag_keys` is empty.
  StandbyDomains(const Cluster& cluster, std::span<const std::string> tag_keys);

  std::uint32_t domain(ClientIndex c) const noexcept { return domain_[c]; }  // kNone: no domain
  std::size_t domain_count() const noexcept { return count_; }
  bool colocated(ClientIndex a, ClientIndex b) const noexcept {
    return domain_[a] != kNone && domain_[a] == domain_[b];
  }
  // Whether c shares a domain with the active or a standby of t in `draft` (other than c itself).
  bool shares_with_copies(const AssignmentDraft& draft, TaskIndex t, ClientIndex c) const noexcept;

 private:
  std::vector<std::uint32_t> domain_;  // per client
  std::size_t count_ = 0;
};

struct DiverseStandbyOptions {
  bool prefer_previous_holders = false;  // sticky strategies: a previous holder first within a tier
};

// Places the draft's missing standbys (keeping those already placed). Returns the number of standbys
// that could not be placed (too few clients), like place_standbys_least_loaded().
std::uint64_t place_standbys_diverse(const Cluster& cluster, const StandbyDomains& domains, AssignmentDraft& draft,
                                     const DiverseStandbyOptions& options = {});

// Standbys colocated with their task's active as the draft stands (after plan_warmups, say): the
// number the metric colocated_standbys would count.
std::uint64_t colocated_standbys(const StandbyDomains& domains, const AssignmentDraft& draft);

}  // namespace assignor
