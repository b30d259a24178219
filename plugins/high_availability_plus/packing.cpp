#include "packing.hpp"

#include <assignor/balance.hpp>
#include <assignor/tag_standbys.hpp>

namespace assignor::ha_plus {

WarmupPlan pack(const AssignmentInput& in, AssignmentDraft& draft) {
  const Cluster& cluster = in.cluster;
  if (cluster.client_count() == 0) return {};
  // 1. Stateful actives (any store), ignoring history, in proportion to threads.
  spread_stateful_actives_round_robin(cluster, draft);
  // 2. Standbys of every logged task, least loaded first, then evened out (within equal tags when
  //    rack_aware.tags spreads them, KIP-708).
  const auto& tags = in.settings.rack_aware.tags;
  if (tags.empty()) {
    place_standbys_least_loaded(cluster, draft);
    balance_standbys(cluster, draft);
  } else {
    place_standbys_tag_aware(cluster, tags, draft);
    balance_standbys_within_tags(cluster, tags, draft);
  }
  // 3. Keep every stateful active on a caught-up client while its target warms up.
  const WarmupPlan plan = plan_warmups(cluster, in.settings, in.lags, draft);
  // 4. Stateless tasks by active load.
  fill_stateless_by_active_load(cluster, draft);
  return plan;
}

}  // namespace assignor::ha_plus
