#include "assignor/conformance.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstring>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "assignor/validation.hpp"

namespace assignor::conformance {

namespace {
constexpr const char* kKit = "conformance kit";
}  // namespace

std::string generate_command(const ScenarioSpec& s) {
  std::string extra;
  if (s.changed_clients)
    extra += fmt::format(" --{} {}", s.kind == ScenarioKind::scale_in ? "leaving-clients" : "new-clients",
                         *s.changed_clients);
  if (s.min_end_offset != ScenarioSpec{}.min_end_offset || s.max_end_offset != ScenarioSpec{}.max_end_offset)
    extra += fmt::format(" --changelog-offsets {}-{}", s.min_end_offset, s.max_end_offset);
  if (s.weights != WeightDistribution::uniform) extra += fmt::format(" --weights {}", to_string(s.weights));
  for (std::size_t i = 0; i < s.tags.size(); ++i)
    extra += fmt::format("{}{}={}", i == 0 ? " --tags " : ",", s.tags[i].first, s.tags[i].second);
  if (!s.end_offsets_known) extra += " --end-offsets-unknown";
  const std::string threads =
      s.threads_max > s.threads ? fmt::format("{}-{}", s.threads, s.threads_max) : fmt::format("{}", s.threads);
  return fmt::format(
      "assignor generate --clients {} --threads {} --subtopologies {} --partitions {} "
      "--stateful-fraction {} --nonlogged-fraction {} --standbys {} --racks {} --scenario {} --seed {}{}",
      s.clients, threads, s.subtopologies, s.partitions, s.stateful_fraction, s.nonlogged_fraction, s.standbys, s.racks,
      to_string(s.kind), s.seed, extra);
}

std::string config_yaml(const Case& c, const std::string& strategy) {
  std::string rack_aware;
  if (!c.settings.rack_aware.tags.empty()) {
    rack_aware = ", rack_aware: {tags: [";
    for (std::size_t i = 0; i < c.settings.rack_aware.tags.size(); ++i)
      rack_aware += (i > 0 ? ", " : "") + c.settings.rack_aware.tags[i];
    rack_aware += "]}";
  }
  return fmt::format(
      "strategy: {}\nassignment: {{num_standby_replicas: {}, max_warmup_replicas: {}, acceptable_recovery_lag: "
      "{}{}}}\n",
      strategy, c.settings.num_standby_replicas, c.settings.max_warmup_replicas, c.settings.acceptable_recovery_lag,
      rack_aware);
}

namespace {

// A word for the shell: as it is when it is plain, else in single quotes.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || std::strchr("/._-+=:,@%", ch) != nullptr;
  });
  if (plain) return word;
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::string reproduction(const Case& c, const std::string& strategy, const std::string& library,
                         const std::string& assignor) {
  const std::string lib = library.empty() ? "path/to/" + strategy + ".so" : library;
  const std::string command = assignor.empty() ? std::string("assignor") : shell_word(assignor);
  std::string config;  // one printf argument: newlines written as \n
  for (char ch : config_yaml(c, strategy)) config += ch == '\n' ? std::string("\\n") : std::string(1, ch);
  // generate_command() names the command "assignor": the same command as the assign line. A case
  // built in code writes its cluster file out instead, on one line.
  const std::string generate = c.cluster
                                   ? "printf '%s\\n' " + shell_word(cluster_json(*c.cluster))
                                   : command + generate_command(c.spec).substr(std::string_view("assignor").size());
  return fmt::format(
      "reproduce case {}:\n"
      "  {} > {}.json\n"
      "  printf '{}' > {}.yaml\n"
      "  {} assign --config {}.yaml --cluster {}.json --plugin-path {} --format table\n",
      c.name, generate, c.name, config, c.name, command, c.name, c.name, shell_word(lib));
}

namespace {

std::string test_name(std::string name) {
  for (auto& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

}  // namespace

std::vector<Case> cases(std::uint64_t seed) {
  std::vector<Case> out;
  SplitMix64 rng(seed);
  auto draw = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng.next() % (hi - lo + 1); };
  const ScenarioKind kinds[] = {ScenarioKind::fresh, ScenarioKind::scale_out, ScenarioKind::scale_in,
                                ScenarioKind::rolling_restart};
  std::uint32_t n = 0;
  for (ScenarioKind kind : kinds) {
    for (std::uint32_t standbys : {0u, 1u, 2u}) {
      for (std::uint32_t racks : {0u, 3u}) {
        for (int variant = 0; variant < 2; ++variant) {
          Case c;
          ScenarioSpec& s = c.spec;
          s.kind = kind;
          s.clients = static_cast<std::uint32_t>(draw(2, 24));
          s.threads = static_cast<std::uint32_t>(draw(1, 4));
          s.subtopologies = static_cast<std::uint32_t>(draw(1, 6));
          s.partitions = static_cast<std::uint32_t>(draw(1, 24));
          s.stateful_fraction = variant == 0 ? 0.5 : 1.0;  // with and without stateless tasks
          s.nonlogged_fraction = variant == 0 ? 0.0 : 0.34;
          s.standbys = standbys;
          s.racks = racks;
          s.seed = rng.next() % 1'000'000;
          c.settings.num_standby_replicas = standbys;
          c.settings.max_warmup_replicas = static_cast<std::uint32_t>(draw(1, 4));
          c.settings.acceptable_recovery_lag = variant == 0 ? 10000 : 100;
          c.name = test_name(fmt::format("{}_standbys{}_racks{}_{}_n{}", to_string(kind), standbys, racks,
                                         variant == 0 ? "mixed" : "stateful", n++));
          out.push_back(c);
        }
      }
    }
    // Unknown end offsets, once per kind.
    Case c;
    c.spec.kind = kind;
    c.spec.clients = 6;
    c.spec.threads = 2;
    c.spec.subtopologies = 3;
    c.spec.partitions = 8;
    c.spec.standbys = 1;
    c.spec.seed = rng.next() % 1'000'000;
    c.spec.end_offsets_known = false;
    c.settings.num_standby_replicas = 1;
    c.name = test_name(fmt::format("{}_unknown_end_offsets_n{}", to_string(kind), n++));
    out.push_back(c);
  }
  // Client tags, with racks independent of them (the generator counts tag values after the rack),
  // and tags alone over two keys; standbys spread over the tags (rack_aware.tags).
  for (ScenarioKind kind : kinds) {
    Case c;
    c.spec.kind = kind;
    c.spec.clients = static_cast<std::uint32_t>(draw(6, 18));
    c.spec.threads = static_cast<std::uint32_t>(draw(1, 3));
    c.spec.subtopologies = static_cast<std::uint32_t>(draw(2, 5));
    c.spec.partitions = static_cast<std::uint32_t>(draw(3, 16));
    const bool with_racks = (n % 2) == 0;
    c.spec.racks = with_racks ? 3 : 0;
    c.spec.tags = with_racks ? std::vector<std::pair<std::string, std::uint32_t>>{{"zone", 3}}
                             : std::vector<std::pair<std::string, std::uint32_t>>{{"zone", 2}, {"cluster", 2}};
    c.spec.standbys = with_racks ? 1 : 2;
    c.spec.seed = rng.next() % 1'000'000;
    c.settings.num_standby_replicas = c.spec.standbys;
    c.settings.max_warmup_replicas = static_cast<std::uint32_t>(draw(1, 3));
    for (const auto& [key, values] : c.spec.tags) c.settings.rack_aware.tags.push_back(key);
    c.name =
        test_name(fmt::format("{}_{}_n{}", to_string(kind), with_racks ? "racks3_zones3" : "zones2_clusters2", n++));
    out.push_back(c);
  }
  // Sizes for the timing lines: 1k and 10k tasks.
  for (auto [clients, subs, parts] : {std::tuple{30u, 10u, 100u}, std::tuple{100u, 20u, 500u}}) {
    Case c;
    c.spec.kind = ScenarioKind::scale_out;
    c.spec.clients = clients;
    c.spec.threads = 4;
    c.spec.subtopologies = subs;
    c.spec.partitions = parts;
    c.spec.standbys = 1;
    c.spec.seed = seed;
    c.settings.num_standby_replicas = 1;
    c.name = fmt::format("size_{}_tasks_{}_clients", subs * parts, clients);
    out.push_back(c);
  }
  for (Case& c : settled_groups()) out.push_back(std::move(c));
  return out;
}

Cluster cluster_of(const Case& c) { return c.cluster ? *c.cluster : generate_cluster(c.spec); }

std::string cluster_json(const Cluster& cluster) {
  using Json = nlohmann::ordered_json;
  Json doc;
  doc["version"] = 1;
  doc["end_offsets_known"] = cluster.end_offsets_known;
  auto ids = [&](const std::vector<TaskIndex>& tasks) {
    Json list = Json::array();
    for (TaskIndex t : tasks) list.push_back(to_string(cluster.tasks[t].id));
    return list;
  };
  Json tasks = Json::array();
  for (const Task& task : cluster.tasks) {
    Json t;
    t["id"] = to_string(task.id);
    if (!task.stores.empty()) {
      Json stores = Json::array();
      for (const Store& store : task.stores) {
        Json st;
        st["name"] = store.name;
        if (store.logged)
          st["changelog_end_offset"] = store.changelog_end_offset;
        else
          st["logged"] = false;
        stores.push_back(st);
      }
      t["stores"] = stores;
    }
    if (task.weight != 1.0) t["weight"] = task.weight;
    if (!task.partitions.empty()) {
      Json parts = Json::array();
      for (const PartitionRef& p : task.partitions) {
        Json part;
        part["topic"] = p.topic;
        part["partition"] = p.partition;
        if (!p.racks.empty()) {
          part["racks"] = Json::array();
          for (RackIndex r : p.racks) part["racks"].push_back(cluster.racks[r]);
        }
        parts.push_back(part);
      }
      t["partitions"] = parts;
    }
    tasks.push_back(t);
  }
  doc["tasks"] = tasks;
  Json clients = Json::array();
  for (const Client& client : cluster.clients) {
    Json c;
    c["id"] = client.id;
    c["threads"] = client.threads;
    if (client.rack != kNoRack) c["rack"] = cluster.racks[client.rack];
    if (!client.tags.empty()) c["tags"] = client.tags;
    if (!client.previous_active.empty()) c["previous_active"] = ids(client.previous_active);
    if (!client.previous_standby.empty()) c["previous_standby"] = ids(client.previous_standby);
    if (!client.threads_history.empty()) {
      Json threads = Json::object();
      for (const ThreadHistory& th : client.threads_history)
        threads[th.name] = Json{{"active", ids(th.previous_active)}, {"standby", ids(th.previous_standby)}};
      c["previous_by_thread"] = threads;
    }
    if (!client.offset_sums.empty()) {
      Json sums = Json::object();
      for (const OffsetSum& o : client.offset_sums) sums[to_string(cluster.tasks[o.task].id)] = o.sum;
      c["offset_sums"] = sums;
    }
    clients.push_back(c);
  }
  doc["clients"] = clients;
  return doc.dump();
}

namespace {

const char* role_name(int list) { return list == 0 ? "active" : (list == 1 ? "standby" : "warmup"); }

// The first placement one assignment has and the other has not, in words ("" when equal).
std::string first_difference(const Cluster& cluster, const Assignment& a, const Assignment& b) {
  const std::vector<Placement>* lists_a[] = {&a.actives, &a.standbys, &a.warmups};
  const std::vector<Placement>* lists_b[] = {&b.actives, &b.standbys, &b.warmups};
  auto by_task = [](const Placement& x, const Placement& y) {
    return std::tie(x.task, x.client) < std::tie(y.task, y.client);
  };
  for (int l = 0; l < 3; ++l) {
    std::vector<Placement> x = *lists_a[l], y = *lists_b[l];
    std::sort(x.begin(), x.end(), by_task);
    std::sort(y.begin(), y.end(), by_task);
    const auto [ix, iy] = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
    if (ix == x.end() && iy == y.end()) continue;
    auto words = [&](auto it, const std::vector<Placement>& v) {
      return it == v.end() ? std::string("nothing")
                           : fmt::format("{} of task {} on client {}", role_name(l),
                                         to_string(cluster.tasks[it->task].id), cluster.clients[it->client].id);
    };
    return fmt::format("first run: {}; second run: {}", words(ix, x), words(iy, y));
  }
  return "";
}

}  // namespace

Suite::Suite(const PluginDescriptor& plugin, Options options)
    : Suite(
          plugin.name, plugin.capabilities, [&plugin]() -> std::shared_ptr<Strategy> { return make_strategy(plugin); },
          std::move(options)) {}

Suite::Suite(std::string name, std::uint32_t capabilities, Factory factory, Options options)
    : name_(std::move(name)), capabilities_(capabilities), factory_(std::move(factory)), options_(std::move(options)) {}

Suite& Suite::property(std::string name, Property check) {
  properties_.emplace_back(std::move(name), std::move(check));
  return *this;
}

Suite& Suite::add_case(Case c) {
  c.name = test_name(c.name);
  added_.push_back(std::move(c));
  return *this;
}

Suite& Suite::add_case(std::string name, Cluster cluster, AssignmentSettings settings) {
  Case c;
  c.name = std::move(name);
  c.settings = std::move(settings);
  c.cluster = std::make_shared<const Cluster>(std::move(cluster));
  return add_case(std::move(c));
}

std::vector<Case> Suite::all_cases() const {
  std::vector<Case> all = cases(options_.seed);
  all.insert(all.end(), added_.begin(), added_.end());
  return all;
}

void Suite::check(const Case& c) const {
  // Failures are reported at "conformance kit", not at a line of this file: a plugin author has the
  // installed kit, not its sources, and the reproduction lines say what to run.
  const ::testing::ScopedTrace trace(kKit, -1, reproduction(c, name_, options_.library, options_.assignor));
  const Cluster cluster = cluster_of(c);
  const LagModel lags(cluster, c.settings);
  const std::shared_ptr<Strategy> strategy = factory_();

  const auto start = std::chrono::steady_clock::now();
  Assignment first = strategy->assign(AssignmentInput{cluster, c.settings, lags});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ::testing::Test::RecordProperty("assign_ms", fmt::format("{:.3f}", ms));
  ::testing::Test::RecordProperty("tasks", std::to_string(cluster.task_count()));

  const auto errors = validate(cluster, c.settings, first);
  for (std::size_t i = 0; i < errors.size() && i < 10; ++i)
    ADD_FAILURE_AT(kKit, -1) << "invalid assignment: " << to_string(errors[i].kind) << ": " << errors[i].message;
  if (!errors.empty()) {
    ADD_FAILURE_AT(kKit, -1) << errors.size() << " validation errors (the first 10 above)";
    return;
  }

  // Deterministic: a fresh strategy object on the same input gives the same assignment.
  Assignment second = factory_()->assign(AssignmentInput{cluster, c.settings, lags});
  first.normalize();
  second.normalize();
  if (!(first == second))
    ADD_FAILURE_AT(kKit, -1) << "not deterministic: the same input gave two different assignments; "
                             << first_difference(cluster, first, second)
                             << (first.probing_rebalance != second.probing_rebalance ? "; probing differs" : "");

  if ((capabilities_ & kCapabilityHighAvailability) && cluster.end_offsets_known) {
    const auto restoring = check_high_availability(cluster, lags, first);
    for (std::size_t i = 0; i < restoring.size() && i < 10; ++i)
      ADD_FAILURE_AT(kKit, -1) << "declares high availability but returned a restoring active: "
                               << restoring[i].message;
  }
  if (!first.warmups.empty() && !first.probing_rebalance) {
    const Placement& w = first.warmups.front();
    ADD_FAILURE_AT(kKit, -1) << "warmups without a probing rebalance (e.g. warmup of task "
                             << to_string(cluster.tasks[w.task].id) << " on client " << cluster.clients[w.client].id
                             << "): the warmups would never be used";
  }
  if (options_.time_budget_ms > 0 && ms > options_.time_budget_ms)
    ADD_FAILURE_AT(kKit, -1) << fmt::format("assign took {:.3f} ms, over the budget of {} ms ({} tasks x {} clients)",
                                            ms, options_.time_budget_ms, cluster.task_count(), cluster.client_count());

  if (::testing::Test::HasFailure()) return;  // properties assume a valid assignment
  const Metrics metrics = compute_metrics(cluster, c.settings, lags, first);
  for (const auto& [name, property] : properties_) {
    const ::testing::ScopedTrace property_trace(kKit, -1, "property: " + name);
    property(Run{c, cluster, lags, first, metrics, ms});
  }

  if (cluster.task_count() >= 1000)
    std::printf("[ timing   ] %s: %zu tasks x %zu clients in %.3f ms\n", name_.c_str(), cluster.task_count(),
                cluster.client_count(), ms);
}

namespace {

class CaseTest : public ::testing::Test {
 public:
  CaseTest(Case c, std::function<void(const Case&)> body) : case_(std::move(c)), body_(std::move(body)) {}
  void TestBody() override { body_(case_); }

 private:
  Case case_;
  std::function<void(const Case&)> body_;
};

bool parse_number(std::string_view text, double& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}
bool parse_number(std::string_view text, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

void Suite::register_tests() {
  const std::vector<Case> all = all_cases();
  std::set<std::string> names;
  for (const Case& c : all)
    if (!names.insert(c.name).second)
      throw std::invalid_argument("conformance: two cases are named '" + c.name + "' (add_case needs a new name)");
  for (const Case& c : all) {
    ::testing::RegisterTest(
        "Conformance", c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
        [this, c]() -> ::testing::Test* { return new CaseTest(c, [this](const Case& k) { check(k); }); });
  }
  if (!options_.stability.enabled) return;
  for (const Case& c : all) {
    if (!c.settled && c.spec.subtopologies * std::uint64_t{c.spec.partitions} > options_.stability.max_tasks) continue;
    if (c.cluster && c.cluster->task_count() > options_.stability.max_tasks) continue;
    ::testing::RegisterTest(
        "Stability", c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
        [this, c]() -> ::testing::Test* { return new CaseTest(c, [this](const Case& k) { check_stability(k); }); });
  }
}

int Suite::run(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> const char* {
      if (arg == flag && i + 1 < argc) return argv[++i];
      if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=')
        return argv[i] + flag.size() + 1;
      return nullptr;
    };
    if (const char* v = value("--seed")) {
      if (!parse_number(v, options_.seed)) {
        std::cerr << "conformance: --seed needs a number, got '" << v << "'\n";
        return 2;
      }
    } else if (const char* l = value("--library")) {
      options_.library = l;
    } else if (const char* a = value("--assignor")) {
      options_.assignor = a;
    } else if (const char* g = value("--stability-off-generated")) {
      options_.stability.generated_off_because = g;
    } else if (const char* t = value("--stability-off-settled")) {
      options_.stability.settled_groups_off_because = t;
    } else if (const char* b = value("--time-budget-ms")) {
      if (!parse_number(b, options_.time_budget_ms)) {
        std::cerr << "conformance: --time-budget-ms needs a number >= 0, got '" << b << "'\n";
        return 2;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  rest.push_back(nullptr);  // argv[argc] is null: GoogleTest shifts flags out through it
  ::testing::InitGoogleTest(&rest_argc, rest.data());
  if (rest_argc > 1) {
    std::cerr << "conformance: unknown argument '" << rest[1] << "'\n";
    return 2;
  }
  register_tests();
  std::cout << "conformance: strategy " << name_ << ", seed " << options_.seed;
  if (options_.time_budget_ms > 0) std::cout << ", time budget " << options_.time_budget_ms << " ms";
  if (!options_.stability.generated_off_because.empty())
    std::cout << "\nstability on the generated cases left out: " << options_.stability.generated_off_because;
  if (!options_.stability.settled_groups_off_because.empty())
    std::cout << "\nstability on the settled groups left out: " << options_.stability.settled_groups_off_because;
  std::cout << "\n";
  return RUN_ALL_TESTS();
}

}  // namespace assignor::conformance
