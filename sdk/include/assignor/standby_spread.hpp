// Standbys in another failure domain than their active: diverse standby placement over racks,
// client tags, or both, for any strategy.
//
// A failure domain is what one outage takes down: a rack, a zone, a cluster. StandbyDomains gives
// every client its domains along one or more dimensions (DomainKeys): its rack, and its values of
// some tag keys, either each key a dimension of its own (TagMatch::any_value: two clients in one
// zone share a domain whatever their other tags) or the combination of the values one dimension
// (TagMatch::all_values: they share one only when every key matches). Two clients are colocated
// when they share a domain in any dimension; a client without a rack (or without one of the tag
// keys) has no domain in that dimension and is never colocated through it. So with racks and a
// `zone` tag, a standby is colocated with its active when it shares the rack OR the zone.
//
// The metric colocated_standbys (DESIGN 4.5) counts standbys colocated with their active under
// StandbyDomains::of_metrics(): the rack when clients have racks, and the combination of the
// values of rack_aware.tags when those are set (both when both are given).
//
// place_standbys_diverse() places the draft's missing standbys of every task with a logged store,
// in task order. Each copy goes to the least-loaded client (active + standby + warmup per thread,
// ties by index) that does not hold the task, taken from the first non-empty tier of:
//   1. clients outside the domains of the task's active and of its standbys placed so far,
//   2. clients outside the active's domain,
//   3. any client.
// With prefer_previous_holders, a previous holder of the task (standby, or previous active) in
// that tier comes before a less loaded client. With `lags` (DiverseStandbyOptions), within a tier
// the most caught-up client comes first (DESIGN 2's rank: running, then caught up, then by lag;
// clients with nothing on disk are all equal), then the previous holders, then load: the copy
// that is worth most the moment it is placed. Clients without a domain are never colocated, so
// without racks or tags (and without lags) this is place_standbys_least_loaded(). With tag keys it
// spreads over the values; place_standbys_tag_aware() (tag_standbys.hpp) instead scores each key
// on its own, as Kafka's KIP-708 assignor does.
//
// To keep the spread while actives wait for their warmups, give the same StandbyDomains to
// plan_warmups (WarmupPlanOptions::standby_domains): the active that will run, not only the target,
// stays out of its standbys' domains.
//
//   // A standby in another rack and another zone than its active, the most caught-up one first:
//   const StandbyDomains domains(cluster, DomainKeys{.rack = true, .tags = {"zone"}});
//   place_standbys_diverse(cluster, domains, draft, {.prefer_previous_holders = true, .lags = &in.lags});
//   WarmupPlanOptions options;
//   options.standby_domains = &domains;
//   plan_warmups(cluster, settings, lags, draft, options);
//   ...
//   const Assignment result = draft.finish(plan.probing_rebalance_needed());
//   colocated_standbys(domains, result);   // 0 when the clients allowed it
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"
#include "assignor/settings.hpp"

namespace assignor {

// How clients' domains are drawn with tag keys: each key on its own, or all keys together.
enum class TagMatch : std::uint8_t {
  any_value,   // one dimension per key: sharing any one value is sharing a domain
  all_values,  // one dimension for the combination: sharing a domain needs every value equal
};

// The dimensions of the failure domains.
struct DomainKeys {
  bool rack = false;                // the client's rack
  std::vector<std::string> tags{};  // client tag keys (rack_aware.tags, say)
  TagMatch tag_match = TagMatch::any_value;
};

class StandbyDomains {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // One dimension: the combination of the values of `tag_keys`, or the rack when `tag_keys` is
  // empty (SDK 0.5's domains).
  StandbyDomains(const Cluster& cluster, std::span<const std::string> tag_keys);
  StandbyDomains(const Cluster& cluster, std::initializer_list<std::string> tag_keys)
      : StandbyDomains(cluster, std::span<const std::string>(tag_keys.begin(), tag_keys.size())) {}
  // The dimensions `keys` names (none: nobody is ever colocated).
  StandbyDomains(const Cluster& cluster, const DomainKeys& keys);
  // What the metric colocated_standbys counts (DESIGN 4.5): the rack when some client has one, and
  // the combination of the values of settings.rack_aware.tags when those are set.
  static StandbyDomains of_metrics(const Cluster& cluster, const AssignmentSettings& settings);

  std::size_t dimensions() const noexcept { return counts_.size(); }
  // Client c's domain in one dimension (kNone: it has none there), and how many domains the
  // dimension has.
  std::uint32_t domain(ClientIndex c, std::size_t dimension = 0) const noexcept {
    return dimension < counts_.size() ? domain_[c * counts_.size() + dimension] : kNone;
  }
  std::size_t domain_count(std::size_t dimension = 0) const noexcept {
    return dimension < counts_.size() ? counts_[dimension] : 0;
  }
  // Whether a and b share a domain in some dimension.
  bool colocated(ClientIndex a, ClientIndex b) const noexcept {
    const std::size_t k = counts_.size();
    for (std::size_t d = 0; d < k; ++d) {
      const std::uint32_t x = domain_[a * k + d];
      if (x != kNone && x == domain_[b * k + d]) return true;
    }
    return false;
  }
  // Whether c shares a domain with the active or a standby of t in `draft` (other than c itself).
  bool shares_with_copies(const AssignmentDraft& draft, TaskIndex t, ClientIndex c) const noexcept;

 private:
  void add_dimension(std::vector<std::uint32_t> of_client, std::size_t count);

  std::vector<std::uint32_t> domain_;  // client * dimensions() + dimension
  std::vector<std::size_t> counts_;    // per dimension
};

struct DiverseStandbyOptions {
  bool prefer_previous_holders = false;  // sticky strategies: a previous holder first within a tier
  // When given: within a tier, the most caught-up client first (then previous holders, then load).
  // Not owned; must outlive the call.
  const LagModel* lags = nullptr;
};

// Places the draft's missing standbys (keeping those already placed). Returns the number of standbys
// that could not be placed (too few clients), like place_standbys_least_loaded().
std::uint64_t place_standbys_diverse(const Cluster& cluster, const StandbyDomains& domains, AssignmentDraft& draft,
                                     const DiverseStandbyOptions& options = {});

// Standbys colocated with their task's active as the draft stands (after plan_warmups, say).
std::uint64_t colocated_standbys(const StandbyDomains& domains, const AssignmentDraft& draft);
// The same check on a finished Assignment: the standby placements (not warmups) that share a
// domain with their task's active, in the assignment's order, and their number. With
// StandbyDomains::of_metrics() the count is the metric colocated_standbys.
std::vector<Placement> colocated_standby_placements(const StandbyDomains& domains, const Assignment& assignment);
std::uint64_t colocated_standbys(const StandbyDomains& domains, const Assignment& assignment);

}  // namespace assignor
