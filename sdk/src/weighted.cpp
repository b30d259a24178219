#include "assignor/weighted.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

namespace assignor {

WeightedLoadQueue::WeightedLoadQueue(std::vector<std::uint32_t> threads, std::vector<double> weights)
    : threads_(std::move(threads)), weights_(std::move(weights)), order_(ByWeightLoad{this}) {
  for (ClientIndex c = 0; c < threads_.size(); ++c) order_.insert(c);
}

bool WeightedLoadQueue::ByWeightLoad::operator()(ClientIndex a, ClientIndex b) const noexcept {
  const int cmp = compare_weight_load(q->weights_[a], q->threads_[a], q->weights_[b], q->threads_[b]);
  return cmp != 0 ? cmp < 0 : a < b;
}

void WeightedLoadQueue::add(ClientIndex c, double weight) {
  order_.erase(c);
  weights_[c] += weight;
  order_.insert(c);
}

std::vector<double> active_weights(const Cluster& cluster, const Assignment& assignment) {
  std::vector<double> weight(cluster.client_count(), 0.0);
  for (const auto& p : assignment.actives) weight[p.client] += cluster.tasks[p.task].weight;
  return weight;
}

double weighted_load_spread(const Cluster& cluster, const Assignment& assignment) {
  if (cluster.client_count() == 0) return 0;
  const std::vector<double> weight = active_weights(cluster, assignment);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (ClientIndex c = 0; c < weight.size(); ++c) {
    const double load = weight[c] / cluster.clients[c].threads;
    lo = std::min(lo, load);
    hi = std::max(hi, load);
  }
  return hi - lo;
}

}  // namespace assignor
