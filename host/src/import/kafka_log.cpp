#include "assignor/host/import/kafka_log.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "assignor/errors.hpp"
#include "assignor/host/formats/limits.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/utf8.hpp"
#include "assignor/kafka_identity.hpp"

namespace assignor::host {

namespace {

constexpr std::string_view kDecided = "Decided on assignment: ";
constexpr std::string_view kEnd = "followup probing rebalance.";

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// glibc's memmem (two-way): linear, where string_view::find stops at every occurrence of the
// needle's first letter, which hex ids are full of.
std::size_t find_text(std::string_view haystack, std::string_view needle) noexcept {
  const void* at = ::memmem(haystack.data(), haystack.size(), needle.data(), needle.size());
  return at == nullptr ? std::string_view::npos
                       : static_cast<std::size_t>(static_cast<const char*>(at) - haystack.data());
}

// ---- timestamps ----------------------------------------------------------------------------

// Days since 1970-01-01 of a civil date (a day past the month's last counts on into the next,
// as std::chrono defines it for a date that is not ok()).
std::int64_t days_from_civil(int y, int m, int d) noexcept {
  using namespace std::chrono;
  return sys_days{year{y} / month{static_cast<unsigned>(m)} / day{static_cast<unsigned>(d)}}.time_since_epoch().count();
}

int digits(std::string_view s, std::size_t at, std::size_t n) noexcept {
  if (at + n > s.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!is_digit(s[i])) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// The first `YYYY-MM-DD[ T]HH:MM:SS[.,fraction][Z|+HH:MM|+HHMM]` in `text`: as printed, and in ms.
bool find_timestamp(std::string_view text, std::string& printed, std::optional<std::int64_t>& ms) {
  for (std::size_t i = 0; i + 19 <= text.size(); ++i) {
    if (!is_digit(text[i]) || (i > 0 && is_digit(text[i - 1]))) continue;
    const int y = digits(text, i, 4), mo = digits(text, i + 5, 2), d = digits(text, i + 8, 2);
    const int h = digits(text, i + 11, 2), mi = digits(text, i + 14, 2), s = digits(text, i + 17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
      continue;
    if (text[i + 4] != '-' || text[i + 7] != '-' || (text[i + 10] != ' ' && text[i + 10] != 'T') ||
        text[i + 13] != ':' || text[i + 16] != ':')
      continue;
    std::size_t end = i + 19;
    std::int64_t millis = 0;
    if (end < text.size() && (text[end] == '.' || text[end] == ',')) {
      std::size_t k = end + 1;
      int scale = 100;
      while (k < text.size() && is_digit(text[k])) {
        if (scale > 0) millis += (text[k] - '0') * scale;
        scale /= 10;
        ++k;
      }
      if (k > end + 1) end = k;
    }
    std::int64_t offset_min = 0;
    if (end < text.size() && text[end] == 'Z') {
      ++end;
    } else if (end + 5 <= text.size() && (text[end] == '+' || text[end] == '-')) {
      const int oh = digits(text, end + 1, 2);
      const bool colon = end + 6 <= text.size() && text[end + 3] == ':';
      const int om = digits(text, end + (colon ? 4 : 3), 2);
      if (oh >= 0 && om >= 0) {
        offset_min = (oh * 60 + om) * (text[end] == '-' ? -1 : 1);
        end += colon ? 6 : 5;
      }
    }
    printed.assign(text.substr(i, end - i));
    ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi - offset_min) * 60000 + s * 1000 + millis;
    return true;
  }
  return false;
}

// "app_1  | " (docker compose) or "[pod/name/container] " (kubectl logs --prefix) at the start.
std::size_t container_prefix(std::string_view line, std::string& instance) {
  if (!line.empty() && line[0] == '[' && line.substr(0, 5) == "[pod/") {
    const auto close = line.find("] ");
    if (close != std::string_view::npos) {
      instance.assign(line.substr(1, close - 1));
      return close + 2;
    }
  }
  std::size_t i = 0;
  while (i < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '-' || line[i] == '.'))
    ++i;
  if (i == 0 || i > 128) return 0;
  std::size_t j = i;
  while (j < line.size() && line[j] == ' ') ++j;
  if (j < line.size() && line[j] == '|' && j + 1 < line.size() && line[j + 1] == ' ') {
    instance.assign(line.substr(0, i));
    return j + 2;
  }
  return 0;
}

// A JSON object line: the message (from the first of the usual field names that holds the Decided
// text), its timestamp and instance fields.
bool decided_from_json(std::string_view text, DecidedLine& out) {
  try {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element doc = parser.parse(padded);
    simdjson::dom::object object;
    if (doc.get(object) != simdjson::SUCCESS) return false;
    std::string message, time, instance;
    for (auto field : object) {
      std::string_view value;
      if (field.value.get(value) != simdjson::SUCCESS) continue;
      const std::string_view key = field.key;
      if (message.empty() && find_text(value, kDecided) != std::string_view::npos &&
          (key == "message" || key == "msg" || key == "log" || key == "@message" || key == "MESSAGE" || key == "text" ||
           key == "body"))
        message.assign(value);
      else if (time.empty() && (key == "@timestamp" || key == "timestamp" || key == "time" || key == "ts" ||
                                key == "date" || key == "datetime"))
        time.assign(value);
      else if (instance.empty() && (key == "host" || key == "hostname" || key == "pod" || key == "container_name" ||
                                    key == "container" || key == "instance"))
        instance.assign(value);
    }
    if (message.empty()) return false;
    const auto at = find_text(message, kDecided);
    // A message field may hold a whole text line (docker's json-file driver): its own timestamp.
    if (!find_timestamp(std::string_view(message).substr(0, at), out.timestamp, out.time_ms))
      find_timestamp(time, out.timestamp, out.time_ms);
    out.message = message.substr(at);
    out.instance = std::move(instance);
    return true;
  } catch (const simdjson::simdjson_error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

// ---- the message ---------------------------------------------------------------------------

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool eat(std::string_view literal) noexcept {
    if (text_.substr(pos_, literal.size()) != literal) return false;
    pos_ += literal.size();
    return true;
  }
  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  std::size_t pos() const noexcept { return pos_; }
  // Up to (not including) the first of `stops`, or the end.
  std::string_view until_any(std::string_view stops) noexcept {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && stops.find(text_[pos_]) == std::string_view::npos) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::string_view until(std::string_view literal) noexcept {
    const std::size_t at = text_.find(literal, pos_);
    const std::size_t start = pos_;
    pos_ = at == std::string_view::npos ? text_.size() : at;
    return text_.substr(start, pos_ - start);
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

struct ParseError {
  std::string what;
};

bool parse_int(std::string_view s, std::int64_t& v) noexcept {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && p == s.data() + s.size() && !s.empty();
}

TaskId task_of(std::string_view text, const Cursor& at) {
  const auto id = parse_task_id(text);
  if (id) return *id;
  if (text.find("__") != std::string_view::npos ||
      (std::count(text.begin(), text.end(), '_') == 2 && !text.empty() && !is_digit(text[0])))
    throw ParseError{
        fmt::format("unsupported: task '{}' belongs to a named topology (at character {})", printable(text), at.pos())};
  throw ParseError{fmt::format("garbled: '{}' is not a task id (at character {})", printable(text), at.pos())};
}

// "([a, b, c])" -> items; the caller reads each item.
std::vector<std::string_view> list_items(Cursor& c, std::string_view label) {
  if (!c.eat("(["))
    throw ParseError{fmt::format("garbled: {} does not start with '([' (at character {})", label, c.pos())};
  std::vector<std::string_view> items;
  if (c.eat("])")) return items;
  for (;;) {
    items.push_back(c.until_any(",]"));
    if (c.eat(", ")) continue;
    if (c.eat("])")) return items;
    throw ParseError{fmt::format("cut or garbled: {} does not end with '])' (at character {})", label, c.pos())};
  }
}

std::vector<TaskId> task_list(Cursor& c, std::string_view label) {
  std::vector<TaskId> out;
  for (std::string_view item : list_items(c, label)) out.push_back(task_of(item, c));
  return out;
}

std::vector<std::pair<TaskId, std::int64_t>> task_map(Cursor& c, std::string_view label) {
  std::vector<std::pair<TaskId, std::int64_t>> out;
  for (std::string_view item : list_items(c, label)) {
    const auto eq = item.find('=');
    std::int64_t v = 0;
    if (eq == std::string_view::npos || !parse_int(item.substr(eq + 1), v))
      throw ParseError{
          fmt::format("garbled: {} entry '{}' is not task=number (at character {})", label, printable(item), c.pos())};
    // Kafka prints a lag as end offset minus offset (>= 0), or its sentinels -2 (a running active,
    // Task.LATEST_OFFSET) and -3 (unknown); any other negative lag is no state Kafka had.
    if (label == "taskLagTotals" && v < 0 && v != -2 && v != -3)
      throw ParseError{
          fmt::format("garbled: {} entry '{}': a lag is 0 or more, or Kafka's -2 (running) or -3 "
                      "(unknown), got {} (at character {})",
                      label, printable(item), v, c.pos())};
    out.emplace_back(task_of(item.substr(0, eq), c), v);
  }
  return out;
}

const std::vector<std::string> kVariant26 = {"activeTasks",
                                             "standbyTasks",
                                             "prevActiveTasks",
                                             "prevStandbyTasks",
                                             "prevOwnedPartitionsByConsumerId",
                                             "changelogOffsetTotalsByTask",
                                             "taskLagTotals",
                                             "capacity"};
const std::vector<std::string> kVariant27 = {
    "activeTasks",   "standbyTasks", "prevActiveTasks", "prevStandbyTasks", "changelogOffsetTotalsByTask",
    "taskLagTotals", "capacity"};
const std::vector<std::string> kVariant32 = {
    "activeTasks",   "standbyTasks", "prevActiveTasks", "prevStandbyTasks", "changelogOffsetTotalsByTask",
    "taskLagTotals", "clientTags",   "capacity"};

LoggedClient client_state(Cursor& c, std::string& variant) {
  LoggedClient out;
  if (!c.eat("["))
    throw ParseError{fmt::format("garbled: a client state does not start with '[' (at character {})", c.pos())};
  std::vector<std::string> labels;
  for (;;) {
    const std::string label(c.until_any(":],{}"));
    if (!c.eat(": "))
      throw ParseError{
          fmt::format("cut or garbled: expected a field label such as 'activeTasks: ' (at character {})", c.pos())};
    labels.push_back(label);
    if (label == "capacity") {
      std::int64_t capacity = 0, assigned = 0;
      if (!parse_int(c.until_any(" ]"), capacity) || !c.eat(" assigned: ") || !parse_int(c.until_any("]"), assigned) ||
          !c.eat("]"))
        throw ParseError{fmt::format("cut or garbled: expected 'capacity: N assigned: M]' (at character {})", c.pos())};
      if (capacity < 1 || capacity > 1'000'000)
        throw ParseError{fmt::format("garbled: capacity {} (at character {})", capacity, c.pos())};
      out.capacity = static_cast<std::uint32_t>(capacity);
      break;
    }
    if (label == "activeTasks")
      out.active = task_list(c, label);
    else if (label == "standbyTasks")
      out.standby = task_list(c, label);
    else if (label == "prevActiveTasks")
      out.previous_active = task_list(c, label);
    else if (label == "prevStandbyTasks")
      out.previous_standby = task_list(c, label);
    else if (label == "changelogOffsetTotalsByTask")
      out.offset_sums = task_map(c, label);
    else if (label == "taskLagTotals")
      out.lags = task_map(c, label);
    else if (label == "prevOwnedPartitionsByConsumerId")
      (void)list_items(c, label);
    else if (label == "clientTags") {
      for (std::string_view item : list_items(c, label)) {
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
          throw ParseError{fmt::format("garbled: clientTags entry '{}' is not key=value", printable(item))};
        // What the cluster file can carry: printable UTF-8 within the id length limit.
        bool readable = eq > 0;  // a tag has a key
        for (const std::string_view text : {item.substr(0, eq), item.substr(eq + 1)})
          readable = readable && text.size() <= InputLimits{}.max_id_length &&
                     invalid_utf8_at(text) == std::string_view::npos &&
                     first_control_character(text) == std::string_view::npos;
        if (!readable)
          throw ParseError{fmt::format("garbled: clientTags entry '{}' (at character {})", printable(item), c.pos())};
        out.tags.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      }
    } else {
      throw ParseError{
          fmt::format("unknown ClientState variant: field '{}' (at character {}); the versions read are "
                      "Kafka 2.6, 2.7-3.1 and 3.2 on",
                      printable(label), c.pos())};
    }
    if (!c.eat(" ")) throw ParseError{fmt::format("cut or garbled after {} (at character {})", label, c.pos())};
  }
  if (std::find(labels.begin(), labels.end(), "taskLagTotals") == labels.end())
    throw ParseError{
        "unsupported: no lags (taskLagTotals): this line comes from a Kafka Streams build older than "
        "2.6 or an unreleased one, and cannot give the assignment's input"};
  const char* name = labels == kVariant26   ? "2.6"
                     : labels == kVariant27 ? "2.7-3.1"
                     : labels == kVariant32 ? "3.2+"
                                            : nullptr;
  if (name == nullptr) {
    std::string fields;
    for (const auto& l : labels) fields += (fields.empty() ? "" : ", ") + l;
    throw ParseError{
        fmt::format("unknown ClientState variant (fields {}); the versions read are Kafka 2.6, 2.7-3.1 "
                    "and 3.2 on",
                    printable(fields))};
  }
  if (!variant.empty() && variant != name)
    throw ParseError{fmt::format("garbled: clients printed by two ClientState variants ({} and {})", variant, name)};
  variant = name;
  return out;
}

}  // namespace

std::optional<DecidedLine> find_decided_line(std::string_view line) {
  const auto at = find_text(line, kDecided);
  if (at == std::string_view::npos) return std::nullopt;
  DecidedLine out;
  const std::size_t body = container_prefix(line, out.instance);
  std::string_view rest = line.substr(body);
  const auto first = rest.find_first_not_of(" \t");
  if (first != std::string_view::npos && rest[first] == '{') {
    std::string instance = out.instance;
    if (decided_from_json(rest.substr(first), out)) {
      if (out.instance.empty()) out.instance = std::move(instance);
      return out;
    }
  }
  find_timestamp(line.substr(body, at - body), out.timestamp, out.time_ms);
  out.message.assign(line.substr(at));
  return out;
}

bool starts_streams_config_dump(std::string_view line) noexcept {
  return line.find("StreamsConfig values:") != std::string_view::npos;
}

std::vector<std::pair<std::string, std::string>> streams_config_entries(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const auto tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    line.remove_prefix(tab + 1);
    const auto eq = line.find(" = ");
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq);
    if (key == "num.standby.replicas" || key == "max.warmup.replicas" || key == "acceptable.recovery.lag" ||
        key == "probing.rebalance.interval.ms" || key == "rack.aware.assignment.tags" ||
        key == "rack.aware.assignment.strategy" || key == "rack.aware.assignment.traffic_cost" ||
        key == "rack.aware.assignment.non_overlap_cost")
      out.emplace_back(key, line.substr(eq + 3));
  }
  return out;
}

std::optional<std::pair<TaskId, std::int64_t>> corrupt_end_warning(std::string_view line) {
  // "Task 0_3 had endOffsetSum=300 smaller than offsetSum=700 on member <uuid>. This probably ..."
  const auto at = line.find(" had endOffsetSum=");
  if (at == std::string_view::npos || line.find(" smaller than offsetSum=", at) == std::string_view::npos)
    return std::nullopt;
  const auto task_at = line.rfind("Task ", at);
  if (task_at == std::string_view::npos) return std::nullopt;
  const auto id = parse_task_id(line.substr(task_at + 5, at - task_at - 5));
  const std::size_t value_at = at + std::string_view(" had endOffsetSum=").size();
  const std::size_t value_end = line.find(' ', value_at);
  std::int64_t end = 0;
  if (!id || value_end == std::string_view::npos || !parse_int(line.substr(value_at, value_end - value_at), end))
    return std::nullopt;
  return std::pair{*id, end};
}

ParsedDecided parse_decided_message(std::string_view message) {
  ParsedDecided out;
  const auto start = find_text(message, kDecided);
  if (start == std::string_view::npos) {
    out.problem = "no 'Decided on assignment: ' in the line";
    return out;
  }
  message.remove_prefix(start + kDecided.size());
  const auto end = message.rfind(kEnd);  // at the end: found at once from there
  if (end == std::string_view::npos) {
    out.problem = "cut: the line ends before 'followup probing rebalance.' (a truncated log line?)";
    return out;
  }
  message = message.substr(0, end + kEnd.size());
  try {
    Cursor c(message);
    LoggedRebalance r;
    if (!c.eat("{")) throw ParseError{"garbled: the client map does not start with '{'"};
    std::set<std::string, std::less<>> seen;
    if (!c.eat("}")) {
      for (;;) {
        const std::string process(c.until("=["));
        if (c.at_end()) throw ParseError{fmt::format("garbled: expected '<process id>=[' (at character {})", c.pos())};
        // Kafka keys clients by process id, a UUID (ProcessId prints as one).
        if (!parse_uuid(process))
          throw ParseError{
              fmt::format("garbled: process id '{}' is not a UUID (at character {})", printable(process), c.pos())};
        c.eat("=");
        LoggedClient client = client_state(c, r.variant);
        client.process = process;
        if (!seen.insert(process).second)
          throw ParseError{fmt::format("garbled: process '{}' printed twice", printable(process))};
        r.clients.push_back(std::move(client));
        if (c.eat(", ")) continue;
        if (c.eat("}")) break;
        throw ParseError{
            fmt::format("cut or garbled: expected ', ' or '}}' after a client (at character {})", c.pos())};
      }
    }
    // " with followup", " with no followup" (Kafka's releases) or " with  followup" (unreleased).
    if (!c.eat(" with"))
      throw ParseError{fmt::format("garbled: expected ' with' after the map (at character {})", c.pos())};
    while (c.eat(" ")) {}
    r.probing = !c.eat("no");
    while (c.eat(" ")) {}
    if (!c.eat(kEnd))
      throw ParseError{fmt::format("garbled: expected 'followup probing rebalance.' (at character {})", c.pos())};
    out.rebalance = std::move(r);
  } catch (const ParseError& e) {
    out.problem = e.what;
  }
  return out;
}

// ---- settings --------------------------------------------------------------------------------

void apply_streams_property(StreamsSettings& out, const std::string& key, const std::string& raw,
                            const std::string& where) {
  std::string value = raw;
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.pop_back();
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(value.begin());
  auto number = [&](std::int64_t min, std::int64_t max) {
    std::int64_t v = 0;
    if (!parse_int(value, v) || v < min || v > max)
      throw InputError(
          fmt::format("{}: {} = {}: expected an integer from {} to {}", where, key, printable(value), min, max));
    return v;
  };
  AssignmentSettings& s = out.settings;
  if (key == "num.standby.replicas")
    s.num_standby_replicas = static_cast<std::uint32_t>(number(0, 1 << 20));
  else if (key == "max.warmup.replicas")
    s.max_warmup_replicas = static_cast<std::uint32_t>(number(1, 1 << 30));
  else if (key == "acceptable.recovery.lag")
    s.acceptable_recovery_lag = number(0, INT64_MAX);
  else if (key == "probing.rebalance.interval.ms")
    s.probing_rebalance_interval_ms = number(60000, kMaxProbingIntervalMs);
  else if (key == "rack.aware.assignment.tags") {
    s.rack_aware.tags.clear();
    std::string list = value;
    if (!list.empty() && list.front() == '[' && list.back() == ']') list = list.substr(1, list.size() - 2);
    std::size_t pos = 0;
    while (pos <= list.size()) {
      const std::size_t comma = std::min(list.find(',', pos), list.size());
      std::string tag = list.substr(pos, comma - pos);
      tag.erase(0, tag.find_first_not_of(' '));
      tag.erase(tag.find_last_not_of(' ') + 1);
      if (!tag.empty()) s.rack_aware.tags.push_back(tag);
      pos = comma + 1;
    }
  } else if (key == "rack.aware.assignment.strategy") {
    if (value == "none")
      s.rack_aware.strategy = RackAwareStrategy::none;
    else if (value == "min_traffic")
      s.rack_aware.strategy = RackAwareStrategy::min_traffic;
    else if (value == "balance_subtopology")
      s.rack_aware.strategy = RackAwareStrategy::balance_subtopology;
    else
      throw InputError(
          fmt::format("{}: {} = {}: expected none, min_traffic or balance_subtopology", where, key, printable(value)));
  } else if (key == "rack.aware.assignment.traffic_cost") {
    if (value != "null") s.rack_aware.traffic_cost = number(0, INT32_MAX);
  } else if (key == "rack.aware.assignment.non_overlap_cost") {
    if (value != "null") s.rack_aware.non_overlap_cost = number(0, INT32_MAX);
  } else {
    return;
  }
  if (std::find(out.given.begin(), out.given.end(), key) == out.given.end()) out.given.push_back(key);
}

StreamsSettings read_streams_properties(const std::string& path) {
  // Bounded and refused like every input (a FIFO, a directory, a huge file: text_file.hpp).
  const std::string source = printable(detail::source_name(path));
  const std::string text = detail::read_text_file(source, path, "the Kafka Streams properties file");
  StreamsSettings out;
  std::size_t number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t\f");
    if (first == std::string::npos || line[first] == '#' || line[first] == '!') continue;
    // java.util.Properties: the key ends at the first '=', ':' or white space; the separator is
    // white space around at most one '=' or ':' ("num.standby.replicas 3" is that key and 3).
    const auto key_end = line.find_first_of("=: \t\f", first);
    if (key_end == std::string::npos) continue;  // a key without a value: nothing to apply
    std::string key = line.substr(first, key_end - first);
    std::size_t value_at = line.find_first_not_of(" \t\f", key_end);
    if (value_at != std::string::npos && (line[value_at] == '=' || line[value_at] == ':'))
      value_at = line.find_first_not_of(" \t\f", value_at + 1);
    apply_streams_property(out, key, value_at == std::string::npos ? std::string() : line.substr(value_at),
                           fmt::format("{}:{}", source, number));
  }
  return out;
}

}  // namespace assignor::host
