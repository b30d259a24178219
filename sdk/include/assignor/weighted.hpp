// Weights (Task::weight, DESIGN 4.1: an estimate of a task's load such as its input rate,
// default 1): comparing clients by weight per thread, a queue of clients ordered that way, and the
// weighted_load_spread metric. The weighted strategy's packing (plugins/common/weighted/weighted_packing.hpp,
// also least_movement's `balance: weight`) is built on these.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/lags.hpp"
#include "assignor/model.hpp"

namespace assignor {

// Exact comparison of weight per thread, weight_a / threads_a vs weight_b / threads_b,
// cross-multiplied (no division). Returns <0, 0, >0 like strcmp.
inline int compare_weight_load(double weight_a, std::uint64_t threads_a, double weight_b,
                               std::uint64_t threads_b) noexcept {
  const double l = weight_a * static_cast<double>(threads_b);
  const double r = weight_b * static_cast<double>(threads_a);
  return l < r ? -1 : (l > r ? 1 : 0);
}

// Clients ordered by weight per thread (exact comparison), ties by client index. O(log n) per update.
class WeightedLoadQueue {
 public:
  WeightedLoadQueue(std::vector<std::uint32_t> threads, std::vector<double> weights);

  bool empty() const noexcept { return order_.empty(); }
  ClientIndex least() const noexcept { return *order_.begin(); }
  ClientIndex most() const noexcept { return *order_.rbegin(); }
  void add(ClientIndex c, double weight);
  double weight(ClientIndex c) const noexcept { return weights_[c]; }
  std::uint32_t threads(ClientIndex c) const noexcept { return threads_[c]; }
  // Clients from least to most loaded.
  auto begin() const noexcept { return order_.begin(); }
  auto end() const noexcept { return order_.end(); }

 private:
  struct ByWeightLoad {
    const WeightedLoadQueue* q;
    bool operator()(ClientIndex a, ClientIndex b) const noexcept;
  };
  std::vector<std::uint32_t> threads_;
  std::vector<double> weights_;
  std::set<ClientIndex, ByWeightLoad> order_;
};

// Sum of the weights of each client's active tasks, by client index.
std::vector<double> active_weights(const Cluster& cluster, const Assignment& assignment);

// max - min over clients of (sum of the weights of its active tasks) / threads: the figure
// place_weighted_actives() bounds, and the metric weighted_load_spread. 0 without clients.
double weighted_load_spread(const Cluster& cluster, const Assignment& assignment);

}  // namespace assignor
