#include "assignor/host/report/recommend.hpp"

#include <algorithm>
#include <cmath>

namespace assignor::host {

std::vector<std::size_t> undominated(const std::vector<Candidate>& c) {
  auto beats = [&](std::size_t a, std::size_t b) {  // a dominates b
    bool strictly = false;
    for (std::size_t k = 0; k < c[a].costs.size() && k < c[b].costs.size(); ++k) {
      if (c[a].costs[k] > c[b].costs[k]) return false;
      if (c[a].costs[k] < c[b].costs[k]) strictly = true;
    }
    return strictly;
  };
  const bool any_finite = std::any_of(c.begin(), c.end(), [](const Candidate& x) {
    return !x.costs.empty() && std::isfinite(x.costs[0]);
  });
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (any_finite && (c[i].costs.empty() || !std::isfinite(c[i].costs[0]))) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < c.size() && !dominated; ++j) dominated = j != i && beats(j, i);
    if (!dominated) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return c[a].costs.empty() ? false : c[b].costs.empty() ? true : c[a].costs[0] < c[b].costs[0];
  });
  return out;
}

}  // namespace assignor::host
