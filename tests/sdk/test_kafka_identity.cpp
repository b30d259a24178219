// Kafka's client order (kafka_identity.hpp): Java's UUID.compareTo, signed halves, when every id is
// a UUID; the cluster's own (string) order otherwise. The expected orders come from Java itself
// (java.util.UUID.compareTo on JDK 17, for the ids below).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assignor/kafka_identity.hpp"
#include "assignor/lags.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;
using ::testing::ElementsAre;

TEST(KafkaIdentity, ParsesCanonicalUuidsOnly) {
  const auto id = parse_uuid("a126df22-663b-4d36-86c1-f8f7e8f7cafb");
  ASSERT_TRUE(id);
  EXPECT_EQ(static_cast<std::uint64_t>(id->most), 0xa126df22663b4d36ull);
  EXPECT_EQ(static_cast<std::uint64_t>(id->least), 0x86c1f8f7e8f7cafbull);
  EXPECT_TRUE(parse_uuid("A126DF22-663B-4D36-86C1-F8F7E8F7CAFB"));
  for (const char* bad : {"a126df22663b4d3686c1f8f7e8f7cafb", "a126df22-663b-4d36-86c1-f8f7e8f7caf",
                          "g126df22-663b-4d36-86c1-f8f7e8f7cafb", "c1", ""})
    EXPECT_FALSE(parse_uuid(bad)) << bad;
}

TEST(KafkaIdentity, UuidsSortAsJavaComparesThem) {
  // Java: 8fff... < ffff... < 00000000-0000-0000-8000... < 00000000-0000-0000-0000-...01 < 0fff... < 7fff...
  ClusterBuilder b;
  b.stateless("0_0");
  const char* ids[] = {"7fffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-0000-000000000001",
                       "ffffffff-ffff-ffff-ffff-ffffffffffff", "0fffffff-ffff-ffff-ffff-ffffffffffff",
                       "8fffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-8000-000000000000"};
  for (const char* id : ids) b.client(id);
  const Cluster c = b.build();  // clients in string order
  std::vector<std::string> order;
  for (ClientIndex i : kafka_client_order(c)) order.push_back(c.clients[i].id);
  EXPECT_THAT(order, ElementsAre("8fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff",
                                 "00000000-0000-0000-8000-000000000000", "00000000-0000-0000-0000-000000000001",
                                 "0fffffff-ffff-ffff-ffff-ffffffffffff", "7fffffff-ffff-ffff-ffff-ffffffffffff"));
  // One id that is not a UUID: every id is UUID(0, rank), the string order.
  ClusterBuilder mixed;
  mixed.stateless("0_0").client("ffffffff-ffff-ffff-ffff-ffffffffffff").client("alpha");
  const Cluster m = mixed.build();
  EXPECT_THAT(kafka_client_order(m), ElementsAre(0u, 1u));
}

TEST(KafkaIdentity, APackingSeesTheClientsInKafkasOrderAndItsAnswerMapsBack) {
  // A packing that deals tasks round-robin over the clients in the order it is given them.
  ClusterBuilder b;
  b.stateless("0_0").stateless("0_1").stateless("0_2");
  b.client("10000000-0000-0000-0000-000000000000")
      .client("90000000-0000-0000-0000-000000000000")
      .client("f0000000-0000-0000-0000-000000000000");
  const Cluster c = b.build();
  const AssignmentSettings settings;
  const LagModel lags(c, settings);
  std::vector<std::string> seen;
  const Assignment a = assign_in_kafka_client_order({c, settings, lags}, [&](const AssignmentInput& in) {
    for (const auto& client : in.cluster.clients) seen.push_back(client.id);
    Assignment out;
    for (TaskIndex t = 0; t < in.cluster.task_count(); ++t)
      out.actives.push_back({t, static_cast<ClientIndex>(t % in.cluster.client_count())});
    return out;
  });
  // Java's order: 9..., f... (negative high halves), then 1....
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[0], ::testing::EndsWith("90000000-0000-0000-0000-000000000000"));
  EXPECT_THAT(seen[2], ::testing::EndsWith("10000000-0000-0000-0000-000000000000"));
  // 0_0 went to the first client Kafka sees (9...), which is the cluster's client 1.
  ASSERT_EQ(a.actives.size(), 3u);
  const ClientIndex expected[] = {1, 2, 0};  // by task
  for (const Placement& p : a.actives) EXPECT_EQ(p.client, expected[p.task]) << "task " << p.task;
}

}  // namespace
}  // namespace assignor
