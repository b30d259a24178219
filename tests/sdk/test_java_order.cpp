// Java iteration order (java_order.hpp) against what a JVM did: hash codes, HashMap/HashSet orders and
// PriorityQueue poll orders recorded once by tests/sdk/data/java_order/RecordJavaOrder.java (OpenJDK
// 17) into java_order.txt, replayed here call for call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "assignor/java_order.hpp"

namespace assignor {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

std::string unhex(const std::string& hex) {
  if (hex == "-") return "";
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// The Java hash code of a recorded key: str:TEXT, task:S_P, ktask:S_P, uuid:R.
std::int32_t key_hash(const std::string& key) {
  const std::size_t colon = key.find(':');
  const std::string kind = key.substr(0, colon), body = key.substr(colon + 1);
  if (kind == "str") return java_string_hash(body);
  if (kind == "uuid") return java_uuid_hash(JavaUuid{0, std::stoll(body)});
  const std::size_t us = body.find('_');
  const int s = std::stoi(body.substr(0, us)), p = std::stoi(body.substr(us + 1));
  return kind == "task" ? kafka_streams_task_id_hash(s, p) : kafka_kip1071_task_id_hash(s, p);
}

struct Recorded {
  std::vector<std::vector<std::string>> lines;  // whitespace-split fields
};

const Recorded& recorded() {
  static const Recorded data = [] {
    Recorded r;
    std::ifstream in(ASSIGNOR_JAVA_ORDER_DATA);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      r.lines.push_back(split(line, ' '));
    }
    return r;
  }();
  return data;
}

std::string field(const std::vector<std::string>& fields, const std::string& name) {
  for (const auto& f : fields)
    if (f.rfind(name + "=", 0) == 0) return f.substr(name.size() + 1);
  return "";
}

std::size_t count_of(const std::string& kind) {
  std::size_t n = 0;
  for (const auto& l : recorded().lines) n += l[0] == kind;
  return n;
}

TEST(JavaOrder, RecordedDataIsThere) {
  EXPECT_GE(count_of("string_hash"), 10u) << ASSIGNOR_JAVA_ORDER_DATA;
  EXPECT_GE(count_of("map"), 15u);
  EXPECT_GE(count_of("pq"), 2u);
}

TEST(JavaOrder, HashCodesAreJavas) {
  for (const auto& l : recorded().lines) {
    if (l[0] == "string_hash") {
      EXPECT_EQ(java_string_hash(unhex(l[1])), std::stoi(l[2])) << l[1];
    } else if (l[0] == "uuid_hash") {
      EXPECT_EQ(java_uuid_hash(JavaUuid{std::stoll(l[1]), std::stoll(l[2])}), std::stoi(l[3])) << l[1] << " " << l[2];
    } else if (l[0] == "streams_task_hash") {
      EXPECT_EQ(kafka_streams_task_id_hash(std::stoi(l[1]), std::stoi(l[2])), std::stoi(l[3]));
    } else if (l[0] == "kip1071_task_hash") {
      EXPECT_EQ(kafka_kip1071_task_id_hash(std::stoi(l[1]), std::stoi(l[2])), std::stoi(l[3]));
    }
  }
}

TEST(JavaOrder, HashMapIterationOrdersAreJavas) {
  for (const auto& l : recorded().lines) {
    if (l[0] != "map") continue;
    const std::string name = l[1], ctor = field(l, "ctor");
    const auto ops = split(field(l, "ops"), ',');
    std::map<std::string, std::uint32_t> ids;
    std::vector<std::string> names;
    auto id_of = [&](const std::string& key) {
      auto [it, fresh] = ids.emplace(key, static_cast<std::uint32_t>(names.size()));
      if (fresh) names.push_back(key);
      return it->second;
    };
    JavaHashOrder m = ctor == "default" ? JavaHashOrder()
                      : ctor == "copy"  ? JavaHashOrder::copy_of(ops.size())
                                        : JavaHashOrder::with_capacity(std::stoul(ctor.substr(4)));
    for (const auto& op : ops) {
      const std::string kind = op.substr(0, 3), key = op.substr(4);
      if (kind == "put")
        m.put(id_of(key), key_hash(key));
      else if (kind == "cia")
        m.compute_if_absent(id_of(key), key_hash(key));
      else
        m.remove(id_of(key));
    }
    std::vector<std::string> got;
    for (std::uint32_t k : m.order()) got.push_back(names[k]);
    EXPECT_EQ(got, split(field(l, "order"), ',')) << name;
    EXPECT_FALSE(m.treeified()) << name;
  }
}

TEST(JavaOrder, TreeBinsAreReported) {
  // Nine keys with one hash code in a table of 64 bins: Java makes that bin a tree.
  JavaHashOrder m = JavaHashOrder::with_capacity(64);
  for (std::uint32_t k = 0; k < 8; ++k) m.put(k, 7);
  EXPECT_FALSE(m.treeified());
  m.put(8, 7);
  EXPECT_TRUE(m.treeified());
  // Below 64 bins the table grows instead: 16 -> 32 -> 64, then a tree.
  JavaHashOrder small;
  for (std::uint32_t k = 0; k < 9; ++k) small.put(k, 5);
  EXPECT_EQ(small.bins(), 32u);
  small.put(9, 5);
  EXPECT_EQ(small.bins(), 64u);
  EXPECT_FALSE(small.treeified());
  small.put(10, 5);
  EXPECT_TRUE(small.treeified());
}

TEST(JavaOrder, PriorityQueuePollOrdersAreJavas) {
  for (const auto& l : recorded().lines) {
    if (l[0] != "pq") continue;
    std::map<std::string, int> key;
    auto by_key = [&](const std::string& a, const std::string& b) {
      return key[a] < key[b] ? -1 : (key[a] > key[b] ? 1 : 0);
    };
    JavaPriorityQueue<std::string, decltype(by_key)> q(by_key);
    std::vector<std::string> polled;
    for (const auto& op : split(field(l, "ops"), ',')) {
      const auto f = split(op, ':');
      if (f[0] == "offer") {
        key[f[1]] = std::stoi(f[2]);
        q.offer(f[1]);
      } else if (f[0] == "poll") {
        polled.push_back(q.empty() ? "-" : q.poll());
      } else {
        EXPECT_TRUE(q.remove(f[1])) << f[1];
      }
    }
    while (!q.empty()) polled.push_back(q.poll());
    EXPECT_EQ(polled, split(field(l, "polled"), ',')) << l[1];
  }
}

TEST(JavaOrder, SubtopologyIdsCompareAsStrings) {
  EXPECT_LT(compare_subtopology_ids_as_strings(10, 2), 0);
  EXPECT_GT(compare_subtopology_ids_as_strings(3, 21), 0);
  EXPECT_EQ(compare_subtopology_ids_as_strings(7, 7), 0);
  EXPECT_LT(compare_subtopology_ids_as_strings(1, 10), 0);
}

}  // namespace
}  // namespace assignor
