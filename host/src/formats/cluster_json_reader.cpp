// The cluster reader's fast path for strict JSON (the files `assignor generate`, `import` and other
// tools write): simdjson's on-demand parser read straight into the model, with no document in
// between: a third of the document path's instructions, and none of its memory for the document
// (docs/benchmarks.md, "Readers").
//
// It is not a second authority. It takes only a file that the document path (cluster_reader.cpp)
// would accept, and builds exactly the cluster that path would build; at the first thing it does
// not take (a wrong type, an unknown or repeated key, a value out of range, a limit, a file the
// document would be refused for, JSON that simdjson refuses, `clients` before `tasks`), it
// declines, and the document path reads the file again and says what is wrong, where. So it
// checks everything the document path checks, with the same conversions (parse_int64,
// parse_number, parse_task_id, acceptable_text), but needs no message, place or line number.
//
// Held to that by tests: test_cluster_json_reader.cpp runs both paths over every cluster file of
// the tests and examples, generated files of every shape, and thousands of mutations of them,
// and fuzz_cluster_reader does the same with whatever the fuzzer makes: whenever the fast path
// accepts a file, the document path accepts it too and builds an identical cluster, and the fast
// path's DocumentBudget equals the one the document kept.
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "assignor/host/formats/yaml_json_reader.hpp"
#include "cluster_file.hpp"

namespace assignor::host::detail {

namespace {

using namespace cluster_file;
namespace od = simdjson::ondemand;
using Step = DocumentBudget::Step;

// What a task takes in files as tools write them, at least: sizes the task list up front.
constexpr std::size_t kBytesPerTask = 40;

// Thrown where the fast path leaves the file to the document path.
struct Decline {};

[[noreturn]] void decline() { throw Decline{}; }

inline void need(bool ok) {
  if (!ok) [[unlikely]]
    decline();
}

// Whether `text` starts with `key`: eight bytes at a time, then byte by byte (keys are short: no
// call to memcmp).
inline bool same_text(const char* text, const std::string& key) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, text + i, sizeof a);
    std::memcpy(&b, key.data() + i, sizeof b);
    if (a != b) return false;
  }
  for (; i < key.size(); ++i)
    if (text[i] != key[i]) return false;
  return true;
}

// The first '"' or '\\' from `p` on, or `end` when there is none before it: eight bytes at a time
// (the text is padded, so reading up to seven bytes past `end` is safe).
const char* quote_or_backslash(const char* p, const char* end) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    for (; p < end; p += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, p, sizeof word);
      const std::uint64_t quote = word ^ (kOnes * '"');
      const std::uint64_t backslash = word ^ (kOnes * '\\');
      // The lowest byte flagged is a zero of `quote` or `backslash` (a false flag only ever sits above a true one).
      const std::uint64_t found = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash)) & kHigh;
      if (found != 0) return std::min(p + std::countr_zero(found) / 8, end);
    }
    return end;
  } else {
    while (p < end && *p != '"' && *p != '\\') ++p;
    return p;
  }
}

// parse_task_id's answer, without a call into the SDK for the ids files hold (S_P, each one to
// nine digits without a leading zero); any other text is parse_task_id's to judge.
std::optional<TaskId> task_id(std::string_view text) {
  std::int32_t parts[2] = {0, 0};
  std::size_t i = 0;
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t start = i;
    std::int32_t value = 0;
    while (i < text.size() && i - start < 9 && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
    if (i == start || (i - start > 1 && text[start] == '0')) return parse_task_id(text);
    parts[k] = value;
    if (k == 0) {
      if (i == text.size() || text[i] != '_') return parse_task_id(text);
      ++i;
    }
  }
  if (i != text.size()) return parse_task_id(text);
  return TaskId{parts[0], parts[1]};
}

// parse_int64's answer, without std::from_chars for an integer of up to 18 digits (an optional '-'
// before them); any other text is parse_int64's to judge.
bool integer_value(std::string_view text, std::int64_t& out) {
  const std::size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == sign || text.size() - sign > 18) return parse_int64(text, out) == IntParse::ok;
  std::int64_t value = 0;
  for (std::size_t i = sign; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return parse_int64(text, out) == IntParse::ok;
    value = value * 10 + (text[i] - '0');
  }
  out = sign ? -value : value;
  return true;
}

// The index of `name` among `keys`; an unknown key declines.
std::size_t key_index(std::string_view name, const std::vector<std::string>& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == name) return i;
  decline();
}

// Which keys of a map were seen: a key given twice declines.
class SeenKeys {
 public:
  void add(std::size_t i) {
    need((bits_ & (1u << i)) == 0);
    bits_ |= 1u << i;
  }
  bool has(std::size_t i) const noexcept { return (bits_ & (1u << i)) != 0; }

 private:
  std::uint32_t bits_ = 0;
};

// Declines when `name` is the name of one of `items` (name_of(item)): a linear search while the
// list is short, a hash set past kLinearSearch, so that a hostile list stays linear (as in the
// document path).
template <class Item, class NameOf>
void need_new_name(const std::vector<Item>& items, std::string_view name, const NameOf& name_of,
                   std::unordered_set<std::string>& hashed) {
  if (items.size() < kLinearSearch) {
    for (const Item& item : items) need(name_of(item) != name);
    return;
  }
  if (hashed.empty())
    for (const Item& item : items) hashed.emplace(name_of(item));
  need(hashed.emplace(name).second);
}

// Rack names, found without a copy of the name looked up.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// A field of an object being iterated (simdjson_result<field>::value() is the field's value).
od::field& field_of(simdjson::simdjson_result<od::field>& result) {
  if (result.error() != simdjson::SUCCESS) throw simdjson::simdjson_error(result.error());
  return result.value_unsafe();
}

// A value's first look: its kind and its raw token, as the document's JSON builder takes them.
struct Token {
  od::json_type type;
  std::string_view text;  // from the value's first character to the next token (blanks included)
};

class FastClusterReader {
 public:
  FastClusterReader(std::string_view text, const InputLimits& limits)
      : text_end_(text.data() + text.size()), text_bytes_(text.size()), limits_(limits), budget_(text.size()) {
    step(budget_.expect_json());
  }

  Cluster read(od::document& json) {
    bool tasks_read = false;
    const SeenKeys seen =
        known_fields(json.get_object().value(), kTopKeys, [&](std::size_t k, od::value& value, const Token& t) {
          switch (k) {
            case kVersion:
              if (t.type == od::json_type::null) {
                null(value);
              } else {
                need(t.type == od::json_type::number);
                need(integer(t) == 1);
              }
              break;
            case kEndOffsetsKnown:
              if (t.type == od::json_type::null)
                null(value);
              else
                cluster_.end_offsets_known = boolean(value, t);
              break;
            case kTasks:
              need(t.type == od::json_type::array);
              read_tasks(value);
              tasks_read = true;
              break;
            case kClients:
              // Clients refer to tasks: a file that lists them first is left to the document path.
              need(t.type == od::json_type::array && tasks_read);
              read_clients(value);
              break;
            default: decline();
          }
        });
    need(seen.has(kTasks) && seen.has(kClients));
    // Anything after the root object: not one JSON document, the YAML parser's to explain.
    need(json.current_location().error() == simdjson::OUT_OF_BOUNDS);
    try {
      cluster_.finalize();
    } catch (const std::invalid_argument&) {
      decline();
    }
    return std::move(cluster_);
  }

  const DocumentBudget& cost() const noexcept { return budget_; }

 private:
  // ---- the document's steps, kept in the budget in the document's order --------------------------

  void step(Step s) { need(s == Step::fits || s == Step::grew); }
  std::uint64_t open() {
    const std::uint64_t mark = budget_.stack_size();
    step(budget_.open());
    return mark;
  }
  void close(std::uint64_t mark) { step(budget_.close(mark)); }

  // ---- the loops every list and map of the file goes through ---------------------------------------

  // The fields of a map whose keys are among `keys`, each at most once: fn(key index, value, token)
  // for each, in the file's order, within the map's budget step; the keys seen come back. An unknown
  // or repeated key declines.
  template <class Fn>
  SeenKeys known_fields(od::object map, const std::vector<std::string>& keys, const Fn& fn) {
    const auto mark = open();
    SeenKeys seen;
    for (auto result : map) {
      od::field& field = field_of(result);
      const std::size_t k = known_key(field, keys);
      seen.add(k);
      od::value& v = field.value();
      fn(k, v, token(v));
    }
    close(mark);
    return seen;
  }
  template <class Fn>
  SeenKeys known_fields(od::value& value, const std::vector<std::string>& keys, const Fn& fn) {
    need(token(value).type == od::json_type::object);
    return known_fields(value.get_object().value(), keys, fn);
  }

  // The fields of a map keyed by names or ids of the file's own (tags, offset sums, threads):
  // fn(field) for each, within the map's budget step.
  template <class Fn>
  void any_fields(od::value& value, const Fn& fn) {
    od::object map = value.get_object().value();
    const auto mark = open();
    for (auto result : map) fn(field_of(result));
    close(mark);
  }

  // The elements of a list: fn(element) for each, within the list's budget step.
  template <class Fn>
  void elements(od::value& value, const Fn& fn) {
    od::array list = value.get_array().value();
    const auto mark = open();
    for (auto element : list) fn(element.value());
    close(mark);
  }

  // A map key's text, unescaped (the document holds it so, and compares it with the known keys).
  std::string_view key(od::field& field) {
    const char* const start = field.key().raw();  // after the opening quote
    const char* const p = quote_or_backslash(start, text_end_);
    need(p < text_end_);
    const std::string_view name = *p == '"' ? std::string_view(start, static_cast<std::size_t>(p - start))
                                            : std::string_view(field.unescaped_key().value());
    step(budget_.scalar(name.size()));
    return name;
  }

  // Which of `keys` a map key is: compared as written first (a known key has no escapes), then,
  // for a key with escapes or an unknown one, unescaped; an unknown key declines.
  std::size_t known_key(od::field& field, const std::vector<std::string>& keys) {
    const char* const raw = field.key().raw();  // after the opening quote, within the padded text
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string& k = keys[i];
      if (raw[0] == k[0] && raw[k.size()] == '"' && same_text(raw, k)) {
        step(budget_.scalar(k.size()));
        return i;
      }
    }
    return key_index(key(field), keys);
  }

  // The value's kind by its first character, as simdjson's value::type() tells it (which refuses
  // any other character: so does the fast path).
  Token token(od::value& value) {
    const std::string_view raw = value.raw_json_token();
    switch (raw.empty() ? '\0' : raw[0]) {
      case '{': return {od::json_type::object, raw};
      case '[': return {od::json_type::array, raw};
      case '"': return {od::json_type::string, raw};
      case 'n': return {od::json_type::null, raw};
      case 't':
      case 'f': return {od::json_type::boolean, raw};
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9': return {od::json_type::number, raw};
      default: decline();
    }
  }

  // A string's text, unescaped. Without a backslash it is the text between the quotes of its
  // token, read in place; with one, simdjson unescapes it (and refuses a bad escape, as for the
  // document).
  std::string_view string(od::value& value, const Token& t) {
    need(t.type == od::json_type::string);
    const char* const start = t.text.data() + 1;
    const char* const end = t.text.data() + t.text.size();
    const char* const p = quote_or_backslash(start, end);
    need(p < end);
    const std::string_view s = *p == '"' ? std::string_view(start, static_cast<std::size_t>(p - start))
                                         : std::string_view(value.get_string().value());
    step(budget_.scalar(s.size()));
    return s;
  }
  // An id or a name (FieldReader::string): a string, not empty, acceptable_text.
  std::string_view name(od::value& value, const Token& t) {
    const std::string_view s = string(value, t);
    need(!s.empty() && acceptable_text(s, limits_.max_id_length));
    return s;
  }
  std::string_view number(const Token& t) {
    need(t.type == od::json_type::number);
    const std::string_view text = json_token_text(t.text);
    step(budget_.scalar(text.size()));
    return text;
  }
  std::int64_t integer(const Token& t) {
    std::int64_t value = 0;
    need(integer_value(number(t), value));
    return value;
  }
  bool boolean(od::value& value, const Token& t) {
    need(t.type == od::json_type::boolean);
    const bool b = value.get_bool().value();
    step(budget_.scalar(b ? 4 : 5));
    return b;
  }
  void null(od::value& value) {
    need(value.is_null().value());
    step(budget_.null());
  }

  // A task named in a client's lists (ClusterParser::resolve_task): its index.
  TaskIndex task(std::string_view text) {
    const auto id = task_id(text);
    need(id.has_value() && text.size() <= limits_.max_id_length);
    const TaskIndex t = task_by_id_.find(*id);
    need(t != TaskLookup::kNone);
    return t;
  }
  void task_list(od::value& value, std::vector<TaskIndex>& out) {
    elements(value, [&](od::value& entry) {
      const std::string_view raw = entry.raw_json_token();
      out.push_back(
          task(string(entry, {raw.empty() || raw[0] != '"' ? od::json_type::null : od::json_type::string, raw})));
    });
  }

  // The set that finds repeats in a long list (need_new_name), emptied for the next list.
  std::unordered_set<std::string>& fresh_names() {
    if (!names_.empty()) names_.clear();
    return names_;
  }

  RackIndex rack_index(std::string_view name) {
    if (const auto it = rack_by_name_.find(name); it != rack_by_name_.end()) return it->second;
    const auto r = static_cast<RackIndex>(cluster_.racks.size());
    rack_by_name_.emplace(name, r);
    cluster_.racks.emplace_back(name);
    rack_mark_.push_back(0);
    return r;
  }

  // ---- tasks -------------------------------------------------------------------------------------

  void read_tasks(od::value& value) {
    // Room for the tasks a file of this size holds as tools write them (50 to 100 bytes a task,
    // clients included; a denser file grows the list). Counting them first would cost a tenth of
    // the time. Room for the most a file could hold (13 bytes a task) would be address space, not
    // memory, but a mapping of its own each time a file is read, so page faults each time.
    cluster_.tasks.reserve(std::min<std::uint64_t>(text_bytes_ / kBytesPerTask + 16, limits_.max_tasks));
    const std::uint64_t max_tasks =
        std::min<std::uint64_t>(limits_.max_tasks, std::numeric_limits<TaskIndex>::max() - 1);
    elements(value, [&](od::value& entry) {
      need(cluster_.tasks.size() < max_tasks);
      read_task(entry);
    });
  }

  void read_task(od::value& value) {
    Task& task = cluster_.tasks.emplace_back();  // filled in place (a decline discards the cluster)
    std::optional<TaskId> id;
    known_fields(value, kTaskKeys, [&](std::size_t k, od::value& v, const Token& t) {
      if (k != kTaskId && t.type == od::json_type::null) {  // an optional key with no value: absent
        null(v);
        return;
      }
      switch (k) {
        case kTaskId: {
          const std::string_view text = string(v, t);
          id = task_id(text);  // digits and '_' only: acceptable_text if short enough
          need(id.has_value() && text.size() <= limits_.max_id_length);
          break;
        }
        case kStores:
          need(t.type == od::json_type::array);
          read_stores(v, task);
          break;
        case kWeight: {
          double weight = 0;
          need(parse_number(number(t), weight) == NumberParse::ok && weight > 0);
          task.weight = weight;
          break;
        }
        case kPartitions:
          need(t.type == od::json_type::array);
          read_partitions(v, task);
          break;
        default: decline();
      }
    });
    need(id.has_value());
    task.id = *id;
    need(task_by_id_.add(*id, static_cast<TaskIndex>(cluster_.tasks.size() - 1)) == TaskLookup::kNone);
  }

  void read_stores(od::value& value, Task& task) {
    std::unordered_set<std::string>& long_list = fresh_names();  // past kLinearSearch stores
    elements(value, [&](od::value& entry) {
      Store store;
      std::int64_t end_offset = 0;
      const SeenKeys seen = known_fields(entry, kStoreKeys, [&](std::size_t k, od::value& v, const Token& t) {
        switch (k) {
          case kStoreName: store.name = name(v, t); break;
          case kLogged:
            if (t.type == od::json_type::null)
              null(v);  // absent: logged, the default
            else
              store.logged = boolean(v, t);
            break;
          case kEndOffset:
            end_offset = integer(t);  // null declines: missing for a logged store, given for another
            break;
          default: decline();
        }
      });
      need(seen.has(kStoreName));
      need_new_name(
          task.stores, store.name, [](const Store& other) -> const std::string& { return other.name; }, long_list);
      need(store.logged ? seen.has(kEndOffset) && end_offset >= 0 : !seen.has(kEndOffset));
      if (store.logged) store.changelog_end_offset = end_offset;
      task.stores.push_back(std::move(store));
    });
  }

  void read_partitions(od::value& value, Task& task) {
    std::unordered_set<std::string>& long_list = fresh_names();  // "topic-partition", past kLinearSearch
    elements(value, [&](od::value& entry) {
      PartitionRef ref;
      const SeenKeys seen = known_fields(entry, kPartitionKeys, [&](std::size_t k, od::value& v, const Token& t) {
        switch (k) {
          case kTopic: ref.topic = name(v, t); break;
          case kPartition: {
            const std::int64_t p = integer(t);
            need(p >= 0 && p <= std::numeric_limits<std::int32_t>::max());
            ref.partition = static_cast<std::int32_t>(p);
            break;
          }
          case kRacks:
            if (t.type == od::json_type::null) {
              null(v);
            } else {
              need(t.type == od::json_type::array);
              read_racks(v, ref);
            }
            break;
          default: decline();
        }
      });
      need(seen.has(kTopic) && seen.has(kPartition));
      if (task.partitions.size() < kLinearSearch) {
        for (const PartitionRef& other : task.partitions)
          need(other.partition != ref.partition || other.topic != ref.topic);
      } else {
        const auto key_of = [](const PartitionRef& p) { return p.topic + '-' + std::to_string(p.partition); };
        if (long_list.empty())
          for (const PartitionRef& other : task.partitions) long_list.insert(key_of(other));
        need(long_list.insert(key_of(ref)).second);
      }
      task.partitions.push_back(std::move(ref));
    });
  }

  void read_racks(od::value& value, PartitionRef& ref) {
    ++rack_list_serial_;  // marks the racks of this list
    elements(value, [&](od::value& entry) {
      const RackIndex r = rack_index(name(entry, token(entry)));
      need(rack_mark_[r] != rack_list_serial_);
      rack_mark_[r] = rack_list_serial_;
      ref.racks.push_back(r);
    });
  }

  // ---- clients -----------------------------------------------------------------------------------

  void read_clients(od::value& value) {
    const std::size_t n_tasks = cluster_.tasks.size();
    prev_owner_.assign(n_tasks, kUnmarked);
    standby_mark_.assign(n_tasks, kUnmarked);
    offset_mark_.assign(n_tasks, kUnmarked);
    const std::uint64_t max_clients = std::min<std::uint64_t>(limits_.max_clients, kUnmarked - 1);
    elements(value, [&](od::value& entry) {
      need(cluster_.clients.size() < max_clients);
      read_client(entry);
    });
    need(!cluster_.clients.empty());
  }

  void read_client(od::value& value) {
    Client client;
    std::int64_t threads = 0;
    const SeenKeys seen = known_fields(value, kClientKeys, [&](std::size_t k, od::value& v, const Token& t) {
      if (k != kClientId && k != kThreads && t.type == od::json_type::null) {  // optional, no value: absent
        null(v);
        return;
      }
      switch (k) {
        case kClientId: client.id = name(v, t); break;
        case kThreads: threads = integer(t); break;
        case kRack: client.rack = rack_index(name(v, t)); break;
        case kTags:
          need(t.type == od::json_type::object);
          read_tags(v, client);
          break;
        case kPreviousActive:
          need(t.type == od::json_type::array);
          task_list(v, client.previous_active);
          break;
        case kPreviousStandby:
          need(t.type == od::json_type::array);
          task_list(v, client.previous_standby);
          break;
        case kOffsetSums:
          need(t.type == od::json_type::object);
          read_offset_sums(v, client);
          break;
        case kPreviousByThread:
          need(t.type == od::json_type::object);
          read_threads(v, client);
          break;
        default: decline();
      }
    });
    need(seen.has(kClientId) && seen.has(kThreads));
    check_client(client, threads);
    cluster_.clients.push_back(std::move(client));
  }

  void read_tags(od::value& value, Client& client) {
    any_fields(value, [&](od::field& field) {
      const std::string_view tag = key(field);
      need(!tag.empty() && acceptable_text(tag, limits_.max_id_length));
      od::value& v = field.value();
      const std::string_view text = string(v, token(v));  // may be empty
      need(acceptable_text(text, limits_.max_id_length));
      need(client.tags.emplace(tag, text).second);
    });
  }

  void read_offset_sums(od::value& value, Client& client) {
    any_fields(value, [&](od::field& field) {
      const TaskIndex t = task(key(field));
      od::value& v = field.value();
      client.offset_sums.push_back({t, integer(token(v))});  // any integer: the lag model judges it
    });
  }

  void read_threads(od::value& value, Client& client) {
    std::unordered_set<std::string>& long_list = fresh_names();  // past kLinearSearch threads
    any_fields(value, [&](od::field& field) {
      ThreadHistory thread;
      thread.name = key(field);
      need(!thread.name.empty() && acceptable_text(thread.name, limits_.max_id_length));
      need_new_name(
          client.threads_history, thread.name,
          [](const ThreadHistory& other) -> const std::string& { return other.name; }, long_list);
      od::value& v = field.value();
      const Token t = token(v);
      if (t.type == od::json_type::null) {  // a thread that held nothing
        null(v);
        client.threads_history.push_back(std::move(thread));
        return;
      }
      known_fields(v, kThreadKeys, [&](std::size_t k, od::value& list, const Token& lt) {
        if (lt.type == od::json_type::null) {
          null(list);
          return;
        }
        need(lt.type == od::json_type::array);
        task_list(list, k == kThreadActive ? thread.previous_active : thread.previous_standby);
      });
      client.threads_history.push_back(std::move(thread));
    });
  }

  // What ClusterParser::parse_client checks once the client's values are read, in its order.
  void check_client(Client& client, std::int64_t threads) {
    const auto c = static_cast<ClientIndex>(cluster_.clients.size());
    need(client_by_id_.emplace(client.id, c).second);
    need(threads >= 1 && static_cast<std::uint64_t>(threads) <= std::numeric_limits<std::uint32_t>::max() &&
         static_cast<std::uint64_t>(threads) <= limits_.max_threads_per_client);
    client.threads = static_cast<std::uint32_t>(threads);
    total_threads_ += client.threads;
    need(total_threads_ <= limits_.max_total_threads);
    for (const TaskIndex t : client.previous_active) {
      need(prev_owner_[t] == kUnmarked);  // listed twice, or on another client too
      prev_owner_[t] = c;
    }
    for (const TaskIndex t : client.previous_standby) {
      need(standby_mark_[t] != c && prev_owner_[t] != c);
      standby_mark_[t] = c;
    }
    if (!client.threads_history.empty()) {
      need(client.threads_history.size() <= client.threads);
      if (thread_mark_.empty()) thread_mark_.assign(cluster_.tasks.size(), kUnmarked);
      for (const ThreadHistory& thread : client.threads_history) {
        for (const TaskIndex t : thread.previous_active) {
          need(prev_owner_[t] == c && thread_mark_[t] != c);
          thread_mark_[t] = c;
        }
        for (const TaskIndex t : thread.previous_standby) {
          need(standby_mark_[t] == c && thread_mark_[t] != c);
          thread_mark_[t] = c;
        }
      }
    }
    for (const OffsetSum& sum : client.offset_sums) {
      need(offset_mark_[sum.task] != c);
      offset_mark_[sum.task] = c;
    }
  }

  const char* text_end_;
  std::size_t text_bytes_;
  const InputLimits& limits_;
  DocumentBudget budget_;
  Cluster cluster_;
  TaskLookup task_by_id_{0};
  std::unordered_map<std::string, RackIndex, NameHash, std::equal_to<>> rack_by_name_;
  std::vector<std::uint64_t> rack_mark_;  // per rack: the serial of the last racks list that named it
  std::uint64_t rack_list_serial_ = 0;
  std::unordered_map<std::string, ClientIndex> client_by_id_;
  std::unordered_set<std::string> names_;  // fresh_names()
  std::uint64_t total_threads_ = 0;
  // Per task, the client that marked it (as in ClusterParser), and the one whose threads named it.
  std::vector<std::uint32_t> prev_owner_;
  std::vector<std::uint32_t> standby_mark_;
  std::vector<std::uint32_t> offset_mark_;
  std::vector<std::uint32_t> thread_mark_;
};

}  // namespace

std::optional<Cluster> read_cluster_json(std::string_view text, std::size_t readable, const InputLimits& limits,
                                         DocumentBudget* cost) {
  static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);
  if (text.size() > limits.max_file_bytes) return std::nullopt;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return std::nullopt;
  try {
    // Parsed in place when the buffer has the padding (a file read by read_text_file), else copied
    // (as parse_json_document does).
    simdjson::padded_string copy;
    simdjson::padded_string_view padded(text.data(), text.size(), std::max(readable, text.size()));
    if (padded.padding() < simdjson::SIMDJSON_PADDING) {
      copy = simdjson::padded_string(text);
      padded = copy;
    }
    simdjson::ondemand::parser parser;
    od::document json = parser.iterate(padded).value();
    FastClusterReader reader(std::string_view(padded.data(), text.size()), limits);
    Cluster cluster = reader.read(json);
    if (cost) *cost = reader.cost();
    return cluster;
  } catch (const Decline&) {
  } catch (const simdjson::simdjson_error&) {
  } catch (const std::bad_alloc&) {
    // The document path tries again, and says so if it runs out too.
  }
  return std::nullopt;
}

}  // namespace assignor::host::detail
