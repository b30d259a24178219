// zone_guard: sticky actives balanced by the work that restores, standbys in another rack AND
// another zone than their active, at most `max_moves_per_round` stateful actives moving per
// rebalance. Built from the SDK's blocks alone (SDK 0.6):
//   - LayeredQuotas::by_state + place_actives_sticky: the target. Every client's actives with a
//     changelog, and all its stateful actives, within one task per thread of every other client's;
//     a task stays with its previous owner while that holds, else goes to a caught-up client, else
//     to the least loaded;
//   - max_moves_per_round (parameter, 0 = no limit): beyond that many, a stateful active stays on
//     the client that ran it for this round and the group asks for a probing rebalance;
//   - StandbyDomains over the rack and the `zone_tag` tag (parameter, default "zone"): a standby
//     is colocated with its active when it shares either; place_standbys_diverse puts each
//     outside them, the most caught-up client first; plan_warmups keeps the active that runs
//     meanwhile outside its standbys' rack and zone;
//   - fill_stateless_sticky against the target: stateless tasks do not follow the staged actives.
#include <assignor/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace assignor;

class ZoneGuard final : public Strategy {
 public:
  explicit ZoneGuard(const StrategyParams& params)
      : zone_tag_(params.get_string("zone_tag", "zone")), max_moves_(params.get_int("max_moves_per_round", 0)) {
    params.reject_unknown({"zone_tag", "max_moves_per_round"});
    if (zone_tag_.empty()) throw ConfigError("zone_tag: an empty tag key");
    if (max_moves_ < 0)
      throw ConfigError("max_moves_per_round: must be 0 (no limit) or more, got " + std::to_string(max_moves_));
  }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(false);

    // 1. The target of the stateful actives: the tasks with a changelog keep their owners first.
    LayeredQuotas quotas = LayeredQuotas::by_state(cluster);
    std::vector<TaskIndex> stateful;
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      if (cluster.tasks[t].has_logged_store) stateful.push_back(t);
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      if (cluster.tasks[t].stateful && !cluster.tasks[t].has_logged_store) stateful.push_back(t);
    place_actives_sticky(cluster, in.lags, draft, stateful, quotas);

    // 2. At most max_moves_per_round of them leave a caught-up client that ran them; the others
    //    stay there this round (over their quota) and move at a later rebalance.
    bool deferred = false;
    if (max_moves_ > 0) {
      const auto owner = cluster.previous_active_owner();
      std::int64_t moves = 0;
      for (TaskIndex t : stateful) {
        const ClientIndex from = owner[t];
        if (from == kNoClient || draft.active(t) == from || !in.lags.caught_up(t, from)) continue;
        if (++moves <= max_moves_) continue;
        draft.set_active(t, from);
        deferred = true;
      }
    }

    // 3. Standbys outside the active's rack and zone, the most caught-up client first, then a
    //    previous holder.
    const std::vector<std::string> zone{zone_tag_};
    const StandbyDomains domains(cluster, DomainKeys{.rack = true, .tags = zone});
    place_standbys_diverse(cluster, domains, draft, {.prefer_previous_holders = true, .lags = &in.lags});

    // 4. Keep every stateful active on a caught-up client while its target warms up: the client
    //    running it when it can, outside its standbys' rack and zone.
    const std::vector<std::uint32_t> target = active_counts(draft);
    WarmupPlanOptions options;
    options.keep_on_current_owner = true;
    options.standby_domains = &domains;
    const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft, options);

    // 5. Stateless tasks with their owners within their share of the target, the rest least loaded.
    fill_stateless_sticky(cluster, draft, target);
    return draft.finish(plan.probing_rebalance_needed() || deferred);
  }

 private:
  std::string zone_tag_;
  std::int64_t max_moves_;
};

}  // namespace

ASSIGNOR_PLUGIN(ZoneGuard, "zone_guard", "1.0.0",
                "Sticky actives balanced by stateful work, standbys in another rack and zone, at most "
                "max_moves_per_round stateful moves per rebalance",
                kCapabilityHighAvailability)
