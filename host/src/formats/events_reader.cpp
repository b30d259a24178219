// Reads the events file of `assignor simulate` (docs/compare-and-simulate.md), as strictly as the
// cluster and config readers: unknown keys with suggestions, FILE:LINE:COL in every message.
#include <fmt/format.h>

#include <limits>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/formats/events.hpp"
#include "assignor/host/formats/yaml_json_reader.hpp"

namespace assignor::host {

namespace {

using namespace detail;  // the readers' shared checks (yaml_json_reader.hpp)

const std::vector<std::string> kTopKeys = {"events"};
const std::vector<std::string> kEventKeys = {"round", "join", "leave", "restart", "at_ms"};
enum EventKey : std::size_t { kRound, kJoin, kLeave, kRestart, kAtMs };
const std::vector<std::string> kJoinKeys = {"id", "threads", "rack", "tags"};
enum JoinKey : std::size_t { kJoinId, kJoinThreads, kJoinRack, kJoinTags };
const std::vector<std::string> kLeaveKeys = {"id", "leaves_group"};
enum LeaveKey : std::size_t { kLeaveId, kLeaveLeavesGroup };
const std::vector<std::string> kRestartKeys = {"id", "keep_state", "down_ms", "leaves_group"};
enum RestartKey : std::size_t { kRestartId, kKeepState, kDownMs, kRestartLeavesGroup };

constexpr std::int64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

class EventsParser {
 public:
  EventsParser(std::string source, const InputLimits& limits)
      : source_(std::move(source)), limits_(limits), r_(source_, limits.max_id_length) {}

  std::vector<SimulationEvent> parse(std::string_view text) {
    const auto document =
        detail::load_document(text, source_, "a map with an 'events' list, e.g. events: [{round: 1, leave: c1}]");
    const Node root = document.root();
    if (!root.IsMap())
      r_.fail_at(root, "",
                 fmt::format("expected a map with an 'events' list at the top level, got {}", describe(root)));
    const Fields top(r_, root, "", kTopKeys);
    std::vector<SimulationEvent> events;
    if (!top.has(0)) return events;  // "events:" alone, or no key: nothing happens
    const Node& list = top.value(0);
    r_.expect_list(list, "events");
    bool rounds = false, times = false;
    // What the joins add, at most (if no client ever left): a group the cluster reader would refuse
    // cannot be simulated either, so the file may not join more clients or threads than its limits.
    std::uint64_t joined = 0, joined_threads = 0;
    for (std::size_t i = 0; i < list.size(); ++i)
      for (SimulationEvent& e : entry(list[i], fmt::format("events[{}]", i))) {
        (e.at_ms ? times : rounds) = true;
        if (rounds && times)
          r_.fail_at(list[i], fmt::format("events[{}]", i),
                     "the file mixes events by round and events in time (at_ms): give every event one or the "
                     "other");
        if (e.kind == EventKind::join) {
          joined_threads += e.threads;
          if (++joined > limits_.max_clients)
            r_.fail_at(list[i], fmt::format("events[{}]", i),
                       fmt::format("more than {} clients join in this file; the limit is limits.max_clients",
                                   limits_.max_clients));
          if (joined_threads > limits_.max_total_threads)
            r_.fail_at(list[i], fmt::format("events[{}]", i),
                       fmt::format("the clients that join bring more than {} threads in all; the limit is "
                                   "limits.max_total_threads",
                                   limits_.max_total_threads));
        }
        events.push_back(std::move(e));
      }
    return events;
  }

 private:
  // One entry of the list: one event, or one per client of a `join` or `leave` list.
  std::vector<SimulationEvent> entry(const Node& node, const std::string& place) {
    const Fields f(r_, node, place, kEventKeys);
    SimulationEvent e;
    e.where = detail::location(source_, node.Mark());
    if (f.given(kRound) == f.given(kAtMs))
      r_.fail_at(node, place,
                 f.given(kRound) ? "'round' and 'at_ms' in one entry: give one"
                                 : "expected 'round' (a rebalance number) or 'at_ms' (a time)");
    if (f.given(kRound)) {
      e.round =
          static_cast<std::uint32_t>(r_.integer_in(f.require(kRound, place), join_place(place, "round"), 1, kU32Max));
    } else {
      e.round = 0;
      e.at_ms = r_.integer_in(f.require(kAtMs, place), join_place(place, "at_ms"), 0, kMaxEventMs);
    }

    std::size_t kinds = 0;
    std::size_t kind_key = kRound;
    for (const std::size_t k : {kJoin, kLeave, kRestart}) {
      if (!f.given(k)) continue;
      if (++kinds == 2)
        r_.fail_at(
            f.key(k), place,
            fmt::format("'{}' and '{}' in one entry: write one entry per event", kEventKeys[kind_key], kEventKeys[k]));
      kind_key = k;
    }
    if (kinds == 0) r_.fail_at(node, place, "expected one of 'join', 'leave' or 'restart'");
    const Node& value = f.require(kind_key, place);
    const std::string kind_place = join_place(place, kEventKeys[kind_key]);

    // `join: [...]` and `leave: [...]`: several clients at once, one event each, at the same point.
    if ((kind_key == kJoin || kind_key == kLeave) && value.IsSequence()) {
      std::vector<SimulationEvent> out;
      if (value.size() == 0) r_.fail_at(value, kind_place, "an empty list: name at least one client");
      for (std::size_t i = 0; i < value.size(); ++i) {
        SimulationEvent one = e;
        read_kind(one, kind_key, value[i], fmt::format("{}[{}]", kind_place, i));
        check_in_time(one, value[i], fmt::format("{}[{}]", kind_place, i));
        out.push_back(std::move(one));
      }
      return out;
    }
    read_kind(e, kind_key, value, kind_place);
    check_in_time(e, value, kind_place);
    return {e};
  }

  // What only an event placed in time can say.
  void check_in_time(const SimulationEvent& e, const Node& value, const std::string& kind_place) const {
    if (e.down_ms && !e.at_ms)
      r_.fail_at(value, kind_place, "down_ms needs an event placed in time (at_ms instead of round)");
    if (!e.leaves_group && !e.at_ms)
      r_.fail_at(value, kind_place,
                 "leaves_group: false needs an event placed in time (at_ms instead of round): the session "
                 "timeout is a time");
  }

  void read_kind(SimulationEvent& e, std::size_t kind_key, const Node& value, const std::string& kind_place) {
    switch (kind_key) {
      case kJoin: {
        e.kind = EventKind::join;
        const Fields j(r_, value, kind_place, kJoinKeys);
        e.client = r_.string(j.require(kJoinId, kind_place), join_place(kind_place, "id"));
        if (j.has(kJoinThreads)) {
          // A client the cluster reader would refuse cannot join either: its threads within
          // limits.max_threads_per_client (10,000,000 threads made a round run for hours).
          const std::string place = join_place(kind_place, "threads");
          const std::int64_t threads = r_.integer_in(j.value(kJoinThreads), place, 1, kU32Max);
          if (static_cast<std::uint64_t>(threads) > limits_.max_threads_per_client)
            r_.fail_at(j.value(kJoinThreads), place,
                       fmt::format("{} threads; the limit is {} (limits.max_threads_per_client in the config)", threads,
                                   limits_.max_threads_per_client));
          e.threads = static_cast<std::uint32_t>(threads);
        }
        if (j.has(kJoinRack)) e.rack = r_.string(j.value(kJoinRack), join_place(kind_place, "rack"));
        if (j.has(kJoinTags)) {
          const std::string tags_place = join_place(kind_place, "tags");
          const Node& tags = j.value(kJoinTags);
          r_.expect_map(tags, tags_place);
          for (auto it = tags.begin(); it != tags.end(); ++it) {
            const std::string key = r_.string(it->first, tags_place);
            if (e.tags.count(key) != 0) r_.fail_at(it->first, tags_place, fmt::format("tag '{}' given twice", key));
            e.tags[key] = r_.string(it->second, join_place(tags_place, key), true);
          }
        }
        break;
      }
      case kLeave: {
        e.kind = EventKind::leave;
        if (value.IsMap()) {
          const Fields l(r_, value, kind_place, kLeaveKeys);
          e.client = r_.string(l.require(kLeaveId, kind_place), join_place(kind_place, "id"));
          if (l.has(kLeaveLeavesGroup))
            e.leaves_group = r_.boolean(l.value(kLeaveLeavesGroup), join_place(kind_place, "leaves_group"));
        } else {
          e.client = client_id(value, kind_place);
        }
        break;
      }
      default: {
        e.kind = EventKind::restart;
        if (value.IsMap()) {
          const Fields rs(r_, value, kind_place, kRestartKeys);
          e.client = r_.string(rs.require(kRestartId, kind_place), join_place(kind_place, "id"));
          if (rs.has(kKeepState)) e.keep_state = r_.boolean(rs.value(kKeepState), join_place(kind_place, "keep_state"));
          if (rs.has(kDownMs))
            e.down_ms = r_.integer_in(rs.value(kDownMs), join_place(kind_place, "down_ms"), 0, kMaxEventMs);
          if (rs.has(kRestartLeavesGroup))
            e.leaves_group = r_.boolean(rs.value(kRestartLeavesGroup), join_place(kind_place, "leaves_group"));
        } else {
          e.client = client_id(value, kind_place);
        }
        break;
      }
    }
  }

  std::string client_id(const Node& node, const std::string& place) const {
    if (!node.IsScalar())
      r_.fail_at(node, place, fmt::format("expected a client id or a map with 'id', got {}", describe(node)));
    return r_.string(node, place);
  }

  std::string source_;
  InputLimits limits_;
  FieldReader r_;
};

}  // namespace

namespace {
std::string format_ms(std::int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("{} s", ms / 1000) : fmt::format("{} ms", ms);
}
}  // namespace

std::string describe(const SimulationEvent& event) {
  switch (event.kind) {
    case EventKind::join: {
      std::string text =
          fmt::format("{} joins ({} thread{}", event.client, event.threads, event.threads == 1 ? "" : "s");
      if (event.rack) text += fmt::format(", rack {}", *event.rack);
      return text + ")";
    }
    case EventKind::leave:
      return event.leaves_group ? fmt::format("{} leaves", event.client)
                                : fmt::format("{} stops without leaving the group", event.client);
    case EventKind::restart:
      if (!event.leaves_group)
        return fmt::format("{} stops without leaving the group and restarts{}, {} its state", event.client,
                           event.down_ms ? fmt::format(" after {}", format_ms(*event.down_ms)) : "",
                           event.keep_state ? "keeping" : "losing");
      if (event.down_ms)
        return fmt::format("{} restarts, down for {}, {} its state", event.client, format_ms(*event.down_ms),
                           event.keep_state ? "keeping" : "losing");
      return fmt::format("{} restarts, {} its state", event.client, event.keep_state ? "keeping" : "losing");
  }
  return event.client;
}

std::vector<SimulationEvent> parse_events(std::string_view text, const std::string& source_name,
                                          const InputLimits& limits) {
  return EventsParser(source_name, limits).parse(text);
}

std::vector<SimulationEvent> read_events_file(const std::filesystem::path& path, const InputLimits& limits) {
  const std::string source = detail::source_name(path);
  return parse_events(detail::read_text_file(source, path, "events file", limits.max_file_bytes), source, limits);
}

}  // namespace assignor::host
