#include "assignor/host/report/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "assignor/host/report/report_html.hpp"

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
  const bool any_finite =
      std::any_of(c.begin(), c.end(), [](const Candidate& x) { return !x.costs.empty() && std::isfinite(x.costs[0]); });
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

namespace {

// Tied sweep labels ("k1=a, k2=x, strategy=s") that are every combination of their keys' values are
// named once, varying keys as "k1=a|b|c", instead of listing each combination.
std::optional<std::string> as_cross_product(const std::vector<std::string>& labels) {
  if (labels.size() < 2) return std::nullopt;
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // per key, distinct values in first-seen order
  std::set<std::string> seen;
  for (std::size_t l = 0; l < labels.size(); ++l) {
    if (!seen.insert(labels[l]).second) return std::nullopt;
    std::size_t k = 0, at = 0;
    while (at <= labels[l].size()) {
      std::size_t end = labels[l].find(", ", at);
      if (end == std::string::npos) end = labels[l].size();
      const std::string part = labels[l].substr(at, end - at);
      const std::size_t eq = part.find('=');
      if (eq == std::string::npos) return std::nullopt;
      const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
      if (l == 0) {
        keys.push_back(key);
        values.emplace_back();
      } else if (k >= keys.size() || keys[k] != key)
        return std::nullopt;
      if (std::find(values[k].begin(), values[k].end(), value) == values[k].end()) values[k].push_back(value);
      ++k;
      at = end + 2;
    }
    if (k != keys.size()) return std::nullopt;
  }
  std::size_t combinations = 1;
  for (const auto& v : values) combinations *= v.size();
  if (combinations != labels.size()) return std::nullopt;
  std::string out;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    out += (k ? ", " : "") + keys[k] + "=";
    for (std::size_t v = 0; v < values[k].size(); ++v) out += (v ? "|" : "") + values[k][v];
  }
  return out;
}

}  // namespace

std::string recommendation_line(const std::string& where, const std::vector<Candidate>& candidates,
                                const std::function<std::string(const std::vector<double>&)>& describe) {
  const auto front = undominated(candidates);
  if (front.empty() || candidates[front[0]].costs.empty() || !std::isfinite(candidates[front[0]].costs[0]))
    return fmt::format("{}: none qualifies (no run converged)", where);
  std::vector<std::pair<std::vector<double>, std::vector<std::string>>> groups;
  for (std::size_t i : front) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == candidates[i].costs; });
    if (it == groups.end())
      groups.push_back({candidates[i].costs, {candidates[i].label}});
    else
      it->second.push_back(candidates[i].label);
  }
  auto names = [](const std::vector<std::string>& labels) {
    if (auto product = as_cross_product(labels)) return *product;
    std::string out;
    for (std::size_t i = 0; i < labels.size(); ++i) out += (i ? " / " : "") + labels[i];
    return out;
  };
  std::string out = fmt::format("{}: {} ({})", where, names(groups[0].second), describe(groups[0].first));
  for (std::size_t i = 1; i < groups.size() && i < 6; ++i)
    out += fmt::format("{} {} ({})", i == 1 ? "; also undominated:" : ";", names(groups[i].second),
                       describe(groups[i].first));
  if (groups.size() > 6) out += fmt::format("; and {} more", groups.size() - 6);
  return out;
}

std::string describe_simulation_costs(const std::vector<double>& c) {
  if (c.size() < 3 || !std::isfinite(c[0])) return "never converges";
  std::string out = fmt::format("converges in {}", format_duration_ms(static_cast<std::int64_t>(c[0])));
  out += c[1] > 0 ? fmt::format(", {} of actives restoring", format_duration_ms(static_cast<std::int64_t>(c[1])))
                  : ", no active restoring";
  out += c[2] > 0 ? fmt::format(", {} under-replicated", format_duration_ms(static_cast<std::int64_t>(c[2])))
                  : ", never under-replicated";
  return out;
}

}  // namespace assignor::host
