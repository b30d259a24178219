#include "assignor/settings.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "assignor/errors.hpp"

namespace assignor {

namespace {

[[noreturn]] void bad_value(const std::string& key, const std::string& value, const char* expected) {
  throw ConfigError("strategy parameter '" + key + "': expected " + expected + ", got '" + value + "'");
}

}  // namespace

std::string StrategyParams::get_string(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::int64_t StrategyParams::get_int(const std::string& key, std::int64_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second;
  std::int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || ptr != v.data() + v.size()) bad_value(key, v, "an integer");
  return out;
}

double StrategyParams::get_double(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second;
  std::size_t used = 0;
  double out = 0;
  try {
    out = std::stod(v, &used);
  } catch (const std::exception&) {
    bad_value(key, v, "a number");
  }
  if (used != v.size() || !std::isfinite(out)) bad_value(key, v, "a finite number");
  return out;
}

bool StrategyParams::get_bool(const std::string& key, bool fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  bad_value(key, it->second, "true or false");
}

std::size_t StrategyParams::get_choice(const std::string& key, const std::vector<std::string>& choices,
                                       std::size_t fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == it->second) return i;
  std::string expected;
  for (std::size_t i = 0; i < choices.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  std::string message = "strategy parameter '" + key + "': expected " + expected + ", got '" + it->second + "'";
  const std::string suggestion = nearest(it->second, choices);
  if (!suggestion.empty()) message += "; did you mean '" + suggestion + "'?";
  throw ConfigError(message);
}

void StrategyParams::reject_unknown(const std::vector<std::string>& known) const {
  for (const auto& [key, value] : values_) {
    bool found = false;
    for (const auto& k : known) found = found || k == key;
    if (found) continue;
    std::string message = "unknown strategy parameter '" + key + "'";
    const std::string suggestion = nearest(key, known);
    if (!suggestion.empty())
      message += "; did you mean '" + suggestion + "'?";
    else if (known.empty())
      message += "; this strategy takes no parameters";
    throw ConfigError(message);
  }
}

}  // namespace assignor
