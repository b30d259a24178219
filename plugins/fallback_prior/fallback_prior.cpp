// fallback_prior: every previous active stays where it was, whatever the balance; used when the end
// offsets are unknown (lags cannot be trusted), so the group keeps processing and retries soon.
//
// Tasks without a live previous owner go to the least-loaded client (actives per thread), stateful
// first, in task order; standbys go to the least-loaded clients without the task (previous standby
// holders first, so existing state is reused). Always asks for a probing rebalance.
#include <assignor/sdk.hpp>

#include <vector>

namespace {

using namespace assignor;

class FallbackPrior final : public Strategy {
 public:
  explicit FallbackPrior(const StrategyParams& params) { params.reject_unknown({}); }

  Assignment assign(const AssignmentInput& in) override {
    const Cluster& cluster = in.cluster;
    AssignmentDraft draft(cluster, in.settings.num_standby_replicas);
    if (cluster.client_count() == 0) return draft.finish(true);
    const auto previous = cluster.previous_active_owner();
    for (TaskIndex t = 0; t < cluster.task_count(); ++t)
      if (previous[t] != kNoClient) draft.set_active(t, previous[t]);

    std::vector<std::uint32_t> counts(cluster.client_count());
    for (ClientIndex c = 0; c < cluster.client_count(); ++c) counts[c] = draft.active_count(c);
    LoadQueue actives(client_threads(cluster), std::move(counts));
    for (int pass = 0; pass < 2; ++pass) {  // stateful tasks first, then stateless
      for (TaskIndex t = 0; t < cluster.task_count(); ++t) {
        if (draft.active(t) != kNoClient || cluster.tasks[t].stateful != (pass == 0)) continue;
        const ClientIndex c = actives.least();
        draft.set_active(t, c);
        actives.add(c, 1);
      }
    }

    // Previous standby holders keep their standbys while slots remain; the rest least loaded.
    if (draft.standbys_per_task() > 0) {
      for (ClientIndex c = 0; c < cluster.client_count(); ++c)
        for (TaskIndex t : cluster.clients[c].previous_standby)
          if (cluster.tasks[t].has_logged_store && !draft.holds(t, c) &&
              draft.standby_count(t) < draft.standbys_per_task())
            draft.add_standby(t, c);
      place_standbys_least_loaded(cluster, draft);
    }
    return draft.finish(true);
  }
};

}  // namespace

ASSIGNOR_PLUGIN(FallbackPrior, "fallback_prior", "1.0.0",
                "Keeps every previous active where it was and asks for a probing rebalance; used "
                "when end offsets are unknown",
                assignor::kCapabilityHandlesUnknownLags)
