#include "assignor/host/import/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/task_id.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

// One logged rebalance as read: Kafka's input and its decision.
struct Logged {
  Cluster cluster;
  Assignment decided;
  std::int64_t time_ms = 0;
};

Logged read_logged(const fs::path& dir, const ImportedRebalance& entry, const InputLimits& limits) {
  Logged out;
  const std::string base = (dir / entry.name).string();
  out.cluster = read_cluster_file(base + ".cluster.json", limits);
  ParsedAssignment kafka = read_assignment_file(base + ".kafka.json", out.cluster);
  if (!kafka.errors.empty()) throw InputError(fmt::format("{}.kafka.json: {}", base, kafka.errors.front().message));
  out.decided = std::move(kafka.assignment);
  out.time_ms = *entry.time_ms;
  return out;
}

// Actives the decision takes from a client still in the group that ran them (Kafka revokes them;
// the follow-up rebalance hands them over).
std::vector<Placement> revoked_actives(const Cluster& cluster, const Assignment& decided) {
  std::vector<Placement> out;
  const auto owner = cluster.previous_active_owner();
  for (const Placement& p : decided.actives)
    if (p.task < owner.size() && owner[p.task] != kNoClient && owner[p.task] != p.client) out.push_back(p);
  return out;
}

// A rebalance that revoked tasks is followed at once (the time of one rebalance, seconds); a next
// one further away than Kafka's minimum probing interval was not that follow-up.
constexpr std::int64_t kFollowUpWithin = 60000;

std::int64_t median(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string seconds(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{} s", ms / 1000) : fmt::format("{:.1f} s", static_cast<double>(ms) / 1000);
}

// The position (offsets on disk) a reported offset sum stands for, and the lag behind `end`.
std::int64_t lag_at(std::int64_t reported, std::int64_t end) {
  if (reported == kRunningOffsetSum) return 0;
  if (reported < 0 || reported > end) return end;
  return end - reported;
}

std::optional<std::int64_t> offset_sum_of(const Client& c, TaskIndex t) {
  const auto it = std::lower_bound(c.offset_sums.begin(), c.offset_sums.end(), t,
                                   [](const OffsetSum& s, TaskIndex x) { return s.task < x; });
  if (it == c.offset_sums.end() || it->task != t) return std::nullopt;
  return it->sum;
}

// The tasks (by id) a client holds in one role of an assignment.
std::set<TaskId> tasks_of(const Cluster& cluster, const std::vector<Placement>& list, ClientIndex c) {
  std::set<TaskId> out;
  for (const Placement& p : list)
    if (p.client == c) out.insert(cluster.tasks[p.task].id);
  return out;
}

// Offsets per second a client's copies restored between two logged rebalances `dt_ms` apart: per
// copy held since the first and behind there by more than `acceptable` (a copy within it is a
// standby keeping up with new data, not restoring). `exact` gets the rates of copies still behind
// at the second (they restored the whole time), `bounds` those of copies caught up by then.
void measure_restore(const Logged& before, const Logged& after, std::int64_t acceptable,
                     std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>& rates) {
  const std::int64_t dt = after.time_ms - before.time_ms;
  if (dt <= 0) return;
  for (ClientIndex c = 0; c < before.cluster.client_count(); ++c) {
    const Client& was = before.cluster.clients[c];
    const auto now_index = after.cluster.find_client(was.id);
    if (!now_index) continue;
    const Client& now = after.cluster.clients[*now_index];
    std::set<TaskId> held = tasks_of(before.cluster, before.decided.actives, c);
    for (const auto* list : {&before.decided.standbys, &before.decided.warmups})
      for (const TaskId& t : tasks_of(before.cluster, *list, c)) held.insert(t);
    for (const TaskId& id : held) {
      const auto t_before = before.cluster.find_task(id);
      const auto t_after = after.cluster.find_task(id);
      if (!t_before || !t_after || !before.cluster.tasks[*t_before].has_logged_store) continue;
      const std::int64_t end_before = before.cluster.tasks[*t_before].end_offset_sum;
      const std::int64_t start = offset_sum_of(was, *t_before).value_or(0);
      if (start == kRunningOffsetSum) continue;  // running: nothing to restore
      const std::int64_t lag_before = lag_at(start, end_before);
      if (lag_before <= acceptable) continue;
      const auto reported = offset_sum_of(now, *t_after);
      if (!reported) continue;  // not reported any more: moved away or lost
      const std::int64_t end_after = after.cluster.tasks[*t_after].end_offset_sum;
      const std::int64_t lag_after = lag_at(*reported, end_after);
      const std::int64_t gained = (end_after - lag_after) - std::max<std::int64_t>(start, 0);
      if (gained <= 0) continue;
      const std::int64_t rate = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(static_cast<double>(gained) * 1000.0 / static_cast<double>(dt)));
      auto& [exact, bounds] = rates[was.id];
      (lag_after > acceptable ? exact : bounds).push_back(rate);
    }
  }
}

}  // namespace

std::string describe(const TimelineEvent& e) {
  switch (e.kind) {
    case TimelineEvent::Kind::join:
      if (e.replaces)
        return fmt::format(
            "{} joins ({} thread{}; {} left at the same rebalance: a restart with its state wiped, "
            "which gives a new process id)",
            e.client, e.threads, e.threads == 1 ? "" : "s", *e.replaces);
      return fmt::format("{} joins ({} thread{})", e.client, e.threads, e.threads == 1 ? "" : "s");
    case TimelineEvent::Kind::leave: return fmt::format("{} leaves", e.client);
    case TimelineEvent::Kind::back:
      return fmt::format("{} comes back with its state (gone since +{})", e.client, seconds(e.gone_ms));
    case TimelineEvent::Kind::restart:
      return fmt::format("{} restarted in place, keeping its state (it no longer reports the actives it was given)",
                         e.client);
  }
  return e.client;
}

DecisionByClient decision_by_client(const Cluster& cluster, const Assignment& assignment) {
  DecisionByClient out;
  out.probing = assignment.probing_rebalance;
  for (const auto& c : cluster.clients) out.clients[c.id];
  auto add = [&](const std::vector<Placement>& list, bool active) {
    for (const Placement& p : list) {
      auto& [a, copies] = out.clients[cluster.clients[p.client].id];
      (active ? a : copies).push_back(to_string(cluster.tasks[p.task].id));
    }
  };
  add(assignment.actives, true);
  add(assignment.standbys, false);
  add(assignment.warmups, false);
  for (auto& [id, roles] : out.clients) {
    std::sort(roles.first.begin(), roles.first.end());
    std::sort(roles.second.begin(), roles.second.end());
  }
  return out;
}

DecisionByClient read_logged_decision(const fs::path& dir, const std::string& name) {
  const std::string base = (dir / name).string();
  const Cluster cluster = read_cluster_file(base + ".cluster.json");
  const ParsedAssignment kafka = read_assignment_file(base + ".kafka.json", cluster);
  if (!kafka.errors.empty()) throw InputError(fmt::format("{}.kafka.json: {}", base, kafka.errors.front().message));
  return decision_by_client(cluster, kafka.assignment);
}

bool same_decision(const DecisionByClient& a, const DecisionByClient& b) {
  return a.probing == b.probing && a.clients == b.clients;
}

RealTimeline read_timeline(const fs::path& dir, const std::vector<ImportedRebalance>& index,
                           const TimelineOptions& options) {
  if (index.empty()) throw InputError(fmt::format("{}: the import holds no rebalance", dir.string()));
  std::size_t first = 0;
  if (options.from) {
    const auto it = std::find_if(index.begin(), index.end(), [&](const auto& r) { return r.name == *options.from; });
    if (it == index.end()) {
      std::vector<std::string> names;
      for (const auto& r : index) names.push_back(r.name);
      const std::string near = nearest(*options.from, names);
      throw InputError(fmt::format("--from {}: no such rebalance in {} ({} to {}){}", *options.from, dir.string(),
                                   index.front().name, index.back().name,
                                   near.empty() ? "" : fmt::format("; did you mean {}?", near)));
    }
    first = static_cast<std::size_t>(it - index.begin());
  }
  for (std::size_t i = first; i < index.size(); ++i)
    if (!index[i].time_ms)
      throw InputError(
          fmt::format("{}: rebalance {} ({}) has no time: the log line had no timestamp a timeline can use",
                      (dir / "index.json").string(), index[i].name, index[i].source));

  RealTimeline out;
  out.from = index[first].name;
  out.from_timestamp = index[first].timestamp;
  TimelineSettings& settings = out.settings;
  settings.config = options.config ? *options.config : read_config_file(dir / (out.from + ".config.yaml"));
  const std::int64_t acceptable = settings.config.settings.acceptable_recovery_lag;

  std::optional<Logged> previous;
  std::vector<Placement> previous_revoked;
  std::map<std::string, std::int64_t> gone;  // process ids that left since `from`, and when
  std::vector<std::int64_t> followup_gaps, probing_gaps;
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> rates;
  std::size_t max_warmups = 0;
  const std::int64_t t0 = *index[first].time_ms;
  for (std::size_t i = first; i < index.size(); ++i) {
    Logged now = read_logged(dir, index[i], settings.config.input_limits);
    const std::vector<Placement> revoked = revoked_actives(now.cluster, now.decided);
    TimelineRebalance r;
    r.name = index[i].name;
    r.timestamp = index[i].timestamp;
    r.at_ms = now.time_ms - t0;
    r.clients = now.cluster.client_count();
    r.probing = now.decided.probing_rebalance;
    r.revoked = revoked.size();
    r.active_moves = revoked.size();  // the metric's own definition: a previous owner still here
    r.warmups = now.decided.warmups.size();
    max_warmups = std::max(max_warmups, now.decided.warmups.size());
    std::vector<TimelineEvent> events;
    if (!previous) {
      r.cause = "start";
      out.start = now.cluster;
    } else {
      const Cluster& before = previous->cluster;
      std::vector<std::string> left, joined;
      for (const auto& c : before.clients)
        if (!now.cluster.find_client(c.id)) left.push_back(c.id);
      for (const auto& c : now.cluster.clients) {
        if (before.find_client(c.id)) continue;
        TimelineEvent e;
        e.at_ms = r.at_ms;
        e.rebalance = r.name;
        e.client = c.id;
        e.threads = c.threads;
        const auto back = gone.find(c.id);
        if (back != gone.end()) {
          e.kind = TimelineEvent::Kind::back;
          e.gone_ms = back->second;
          gone.erase(back);
        } else {
          joined.push_back(c.id);
        }
        events.push_back(std::move(e));
      }
      std::size_t replaced = 0;
      for (auto& e : events)
        if (e.kind == TimelineEvent::Kind::join && replaced < left.size()) e.replaces = left[replaced++];
      for (const auto& id : left) {
        TimelineEvent e;
        e.kind = TimelineEvent::Kind::leave;
        e.at_ms = r.at_ms;
        e.rebalance = r.name;
        e.client = id;
        gone[id] = r.at_ms;
        events.insert(events.begin(), std::move(e));  // leaves first: a restart is a leave, then a join
      }
      // A process still here that no longer reports any of the actives it was given restarted.
      for (ClientIndex c = 0; c < before.client_count(); ++c) {
        const auto now_index = now.cluster.find_client(before.clients[c].id);
        if (!now_index) continue;
        std::set<TaskId> expected = tasks_of(before, previous->decided.actives, c);
        for (const Placement& p : previous_revoked)
          if (p.client == c) expected.erase(before.tasks[p.task].id);
        if (expected.empty()) continue;
        const Client& client = now.cluster.clients[*now_index];
        const bool kept_any = std::any_of(client.previous_active.begin(), client.previous_active.end(),
                                          [&](TaskIndex t) { return expected.count(now.cluster.tasks[t].id) != 0; });
        if (kept_any) continue;
        TimelineEvent e;
        e.kind = TimelineEvent::Kind::restart;
        e.at_ms = r.at_ms;
        e.rebalance = r.name;
        e.client = client.id;
        e.threads = client.threads;
        events.push_back(std::move(e));
      }
      const std::int64_t gap = now.time_ms - previous->time_ms;
      if (!events.empty()) {
        r.cause = "events";
      } else if (!previous_revoked.empty() && gap < kFollowUpWithin) {
        r.cause = "follow-up";
        followup_gaps.push_back(gap);
      } else if (previous->decided.probing_rebalance) {
        r.cause = "probing";
        probing_gaps.push_back(gap);
      } else {
        r.cause = "other";
      }
      measure_restore(*previous, now, acceptable, rates);
    }
    for (const auto& e : events) r.events.push_back(describe(e));
    for (auto& e : events) out.events.push_back(std::move(e));
    out.rebalances.push_back(std::move(r));
    previous = std::move(now);
    previous_revoked = revoked;
  }

  // Converged: the first rebalance at or after the last event that asks for no probing and revokes
  // nothing (DESIGN 4.10).
  std::size_t last_event = 0;
  for (std::size_t i = 0; i < out.rebalances.size(); ++i)
    if (!out.rebalances[i].events.empty()) last_event = i;
  for (std::size_t i = last_event; i < out.rebalances.size(); ++i)
    if (!out.rebalances[i].probing && out.rebalances[i].revoked == 0) {
      out.converged_index = i;
      break;
    }
  const std::size_t last = out.converged_index ? *out.converged_index : out.rebalances.size() - 1;
  out.rebalances_to_converged = last + 1;
  if (out.converged_index) out.time_to_converged_ms = out.rebalances[last].at_ms;
  for (std::size_t i = 0; i <= last; ++i) {
    out.active_moves += out.rebalances[i].active_moves;
    out.warmups += out.rebalances[i].warmups;
  }

  // The settings: given, measured, or assumed, each said.
  AssignmentSettings& s = settings.config.settings;
  settings.from =
      options.config ? fmt::format("--config {}", settings.config.source.string()) : index[first].settings_from;
  settings.assumed = !options.config && (settings.from.empty() || settings.from == "Kafka's defaults");
  if (settings.assumed) {
    settings.notes.push_back(
        fmt::format("settings assumed: the log has no StreamsConfig dump and no --streams-config was given, so Kafka's "
                    "defaults stand "
                    "in for the application's (acceptable_recovery_lag {}, max_warmup_replicas {}, "
                    "probing_rebalance_interval_ms {})",
                    s.acceptable_recovery_lag, s.max_warmup_replicas, s.probing_rebalance_interval_ms));
  } else {
    settings.notes.push_back(fmt::format("settings from {}", settings.from));
  }
  if (!options.config && first < index.size() && index[first].standbys_inferred)
    settings.notes.push_back(
        fmt::format("num_standby_replicas {} inferred from Kafka's decisions", s.num_standby_replicas));
  if (!followup_gaps.empty()) {
    settings.rebalance_ms = median(followup_gaps);
    settings.rebalance_ms_measured = true;
    settings.notes.push_back(
        fmt::format("a rebalance costs {} ms: the median time from a rebalance that revoked tasks "
                    "to its follow-up ({} measured)",
                    settings.rebalance_ms, followup_gaps.size()));
  } else {
    settings.rebalance_ms = options.default_rebalance_ms;
    settings.notes.push_back(
        fmt::format("a rebalance costs {} ms, assumed: the log has no follow-up rebalance to "
                    "measure it on",
                    settings.rebalance_ms));
  }
  if (!probing_gaps.empty()) {
    // To the second, and to 5 s from a minute on (Kafka's minimum: people set round figures).
    const std::int64_t raw = median(probing_gaps) - settings.rebalance_ms;
    const std::int64_t grain = raw >= 60000 ? 5000 : 1000;
    const std::int64_t measured = std::max<std::int64_t>(1000, (raw + grain / 2) / grain * grain);
    settings.probing_interval_measured = measured;
    if (settings.assumed) {
      s.probing_rebalance_interval_ms = measured;
      settings.notes.push_back(
          fmt::format("probing_rebalance_interval_ms {} inferred from the log: the median spacing "
                      "of {} probing rebalances, less the rebalance itself",
                      measured, probing_gaps.size()));
    } else if (std::llabs(measured - s.probing_rebalance_interval_ms) * 5 > s.probing_rebalance_interval_ms) {
      settings.notes.push_back(
          fmt::format("the log's probing rebalances come every {} ms, not every {} ms as the "
                      "settings say: are they the application's?",
                      measured, s.probing_rebalance_interval_ms));
    }
  }
  if (settings.assumed && max_warmups > s.max_warmup_replicas) {
    s.max_warmup_replicas = static_cast<std::uint32_t>(max_warmups);
    settings.notes.push_back(
        fmt::format("max_warmup_replicas {} inferred from Kafka's decisions (the most warmups at "
                    "one rebalance)",
                    max_warmups));
  }
  std::vector<std::int64_t> client_medians;
  std::size_t exact_clients = 0;
  for (auto& [client, lists] : rates) {
    auto& [exact, bounds] = lists;
    if (!exact.empty()) {
      settings.client_rates[client] = median(exact);
      ++exact_clients;
    } else if (!bounds.empty()) {
      settings.client_rates[client] = *std::max_element(bounds.begin(), bounds.end());
    } else {
      continue;
    }
    client_medians.push_back(settings.client_rates[client]);
  }
  if (!client_medians.empty()) {
    settings.restore_rate = median(client_medians);
    settings.restore_rate_measured = true;
    settings.notes.push_back(fmt::format(
        "copies restore {} offsets/s: the median of {} client{} measured between logged rebalances ({} from copies "
        "still restoring at the next one, the others lower bounds from copies caught up by then)",
        settings.restore_rate, client_medians.size(), client_medians.size() == 1 ? "" : "s", exact_clients));
  } else if (settings.config.simulation.restore_rate) {
    settings.restore_rate = *settings.config.simulation.restore_rate;
    settings.notes.push_back(
        fmt::format("copies restore {} offsets/s, the config's simulation.restore_rate: no copy "
                    "was seen restoring between two logged rebalances",
                    settings.restore_rate));
  } else {
    settings.notes.push_back(
        "copies catch up fully between rebalances, assumed: no copy was seen restoring between two "
        "logged rebalances");
  }
  return out;
}

}  // namespace assignor::host
