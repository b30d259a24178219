// The simulation's timeline: the events of a run as steps in time (under Kafka's protocol a client
// that stops is noticed a session timeout later), checked before round 1, and what each step does
// to the group.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "assignor/errors.hpp"
#include "simulation_model.hpp"

namespace assignor::host::simulation_model {

namespace {

std::string some_members(const std::set<std::string>& members) {
  constexpr std::size_t kShown = 5;
  std::string text;
  std::size_t i = 0;
  for (const auto& m : members) {
    if (i == kShown) return text + fmt::format(", ... ({} in all)", members.size());
    text += (i++ ? ", " : "") + m;
  }
  return text;
}

}  // namespace

std::vector<Step> plan_steps(std::vector<SimulationEvent> events, bool kafka, std::int64_t session_timeout_ms) {
  std::vector<Step> steps;
  for (auto& e : events) {
    if (kafka && e.at_ms && !e.leaves_group) {
      const std::int64_t t = *e.at_ms;
      const std::int64_t seen = saturating_add(t, session_timeout_ms);
      steps.push_back({e, Step::Phase::stops, t, false, seen});
      if (e.kind == EventKind::restart && e.down_ms) {
        // Back before the session timeout: its join waits for the group to drop the old member, so
        // both happen at one rebalance.
        steps.push_back({e, Step::Phase::down, seen, true, 0});
        steps.push_back({e, Step::Phase::up, std::max(seen, saturating_add(t, *e.down_ms)), true, 0});
      } else {
        steps.push_back({e, Step::Phase::once, seen, true, 0});
      }
    } else if (e.kind == EventKind::restart && e.down_ms && e.at_ms) {
      steps.push_back({e, Step::Phase::down, *e.at_ms, false, 0});
      steps.push_back({e, Step::Phase::up, saturating_add(*e.at_ms, *e.down_ms), false, 0});
    } else {
      steps.push_back({e, Step::Phase::once, e.at_ms.value_or(0), false, 0});
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    if (a.event.at_ms || b.event.at_ms) return a.at_ms < b.at_ms;
    return a.event.round < b.event.round;
  });
  return steps;
}

void check_events(const Cluster& cluster, const std::vector<Step>& ordered) {
  std::set<std::string> members, down;
  for (const auto& c : cluster.clients) members.insert(c.id);
  for (const auto& s : ordered) {
    const SimulationEvent& e = s.event;
    const bool present = members.count(e.client) != 0;
    const std::string where = e.at_ms ? fmt::format("{}: at {} ms: client '{}'", e.where, s.at_ms, e.client)
                                      : fmt::format("{}: round {}: client '{}'", e.where, e.round, e.client);
    if (down.count(e.client) != 0 && s.phase != Step::Phase::up && !s.noticed)
      throw InputError(where + " is down (restarting or stopped) then: an event for it must come after it is back");
    if (s.phase == Step::Phase::stops) {
      if (!present)
        throw InputError(
            fmt::format("{} stops but is not in the group (members then: {})", where, some_members(members)));
      down.insert(e.client);
      continue;
    }
    switch (e.kind) {
      case EventKind::join:
        if (present) throw InputError(where + " joins but is already in the group");
        members.insert(e.client);
        break;
      case EventKind::leave:
        if (!present)
          throw InputError(
              fmt::format("{} leaves but is not in the group (members then: {})", where, some_members(members)));
        if (members.size() == 1) throw InputError(where + " is the last client: the group cannot become empty");
        members.erase(e.client);
        down.erase(e.client);
        break;
      case EventKind::restart:
        if (s.phase == Step::Phase::up) {
          down.erase(e.client);
          members.insert(e.client);
          break;
        }
        if (!present)
          throw InputError(
              fmt::format("{} restarts but is not in the group (members then: {})", where, some_members(members)));
        if (s.phase == Step::Phase::down) {
          if (members.size() == 1) throw InputError(where + " is the last client: the group cannot become empty");
          members.erase(e.client);
          down.insert(e.client);
        } else {
          down.erase(e.client);
        }
        break;
    }
  }
}

std::string apply_step(Cluster& state, const Step& step, const std::vector<std::int64_t>& end_before,
                       std::map<std::string, Client>& away, Incarnations& incarnations, bool renew) {
  const SimulationEvent& e = step.event;
  const std::string id = incarnations.current(e.client);
  auto find = [&state](const std::string& client) {
    return std::lower_bound(state.clients.begin(), state.clients.end(), client,
                            [](const Client& c, const std::string& x) { return c.id < x; });
  };
  auto it = find(id);
  const bool present = it != state.clients.end() && it->id == id;
  auto checkpoint = [&](Client& c) {  // what a stopped client has on disk: running tasks at their end
    c.previous_active.clear();
    c.previous_standby.clear();
    c.threads_history.clear();
    for (auto& sum : c.offset_sums)
      if (sum.sum == kRunningOffsetSum) sum.sum = end_before[sum.task];
  };
  // Back with its state, or with nothing on disk: under Kafka's protocol, as a new process.
  auto come_back = [&](Client client) {
    std::string text = fmt::format("{} comes back, {} its state", id, e.keep_state ? "keeping" : "losing");
    if (!e.keep_state) {
      client.offset_sums.clear();
      if (renew) {
        client.id = incarnations.renew(e.client, state, away);
        text += fmt::format(" (a new process: {})", client.id);
      }
    }
    const auto at = find(client.id);
    state.clients.insert(at, std::move(client));
    return text;
  };
  if (step.phase == Step::Phase::stops) {
    if (!present) throw InputError(fmt::format("{}: client '{}' stops but is not in the group", e.where, id));
    return fmt::format("{} stops without leaving the group (noticed after the session timeout)", id);
  }
  switch (e.kind) {
    case EventKind::join: {
      if (present)
        throw InputError(fmt::format("{}: client '{}' joins but is already in the group", e.where, e.client));
      Client client;
      client.id = e.client;
      client.threads = e.threads;
      client.tags = e.tags;
      if (e.rack) {
        auto r = std::find(state.racks.begin(), state.racks.end(), *e.rack);
        client.rack = static_cast<RackIndex>(r - state.racks.begin());
        if (r == state.racks.end()) state.racks.push_back(*e.rack);
      }
      state.clients.insert(it, std::move(client));  // keeps clients in id order
      return describe(e);
    }
    case EventKind::leave:
      if (!present) throw InputError(fmt::format("{}: client '{}' leaves but is not in the group", e.where, id));
      state.clients.erase(it);
      incarnations.forget(e.client);
      return step.noticed ? fmt::format("{} is gone (the session timeout noticed it)", id)
                          : fmt::format("{} leaves", id);
    case EventKind::restart:
      if (step.phase == Step::Phase::up) {
        auto stashed = away.find(e.client);
        if (present || stashed == away.end())
          throw InputError(fmt::format("{}: client '{}' cannot come back: it is not down", e.where, e.client));
        Client back = std::move(stashed->second);
        away.erase(stashed);
        return come_back(std::move(back));
      }
      if (!present) throw InputError(fmt::format("{}: client '{}' restarts but is not in the group", e.where, id));
      checkpoint(*it);
      if (step.phase == Step::Phase::down) {
        away.emplace(e.client, std::move(*it));
        state.clients.erase(it);
        return step.noticed ? fmt::format("{} is gone (the session timeout noticed it; restarting)", id)
                            : fmt::format("{} goes down (restart)", id);
      }
      if (step.noticed || (!e.keep_state && renew)) {
        Client client = std::move(*it);
        state.clients.erase(it);
        return come_back(std::move(client));
      }
      if (!e.keep_state) it->offset_sums.clear();
      return describe(e);
  }
  return describe(e);
}

}  // namespace assignor::host::simulation_model
