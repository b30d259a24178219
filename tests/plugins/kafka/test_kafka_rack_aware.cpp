// Kafka's rack-aware steps outside the flow solver: the tag-aware standby assignor's
// isAllowedTaskMovement(source, destination, task, clients), which limits the standby rounds of
// RackAwareTaskAssignor when rack_aware.tags is set. Kafka's implementation of it is not among the
// stored sources; the cases are the ones Kafka's ClientTagAwareStandbyTaskAssignorTest pins (the
// task's active on a third client, its standby on the source).
#include <gtest/gtest.h>

#include "cluster_builder.hpp"
#include "kafka_ha/kafka_rack_aware.hpp"

namespace assignor::plugins::kafka_ha {
namespace {

struct Tagged {
  Cluster cluster;
  AssignmentDraft draft;
};

Tagged three_clients(std::map<std::string, std::string> destination_tags) {
  testing::ClusterBuilder b;
  b.stateful("0_0", 100);
  b.client("p1").client("p2").client("p3");
  Cluster c = b.build();
  c.clients[*c.find_client("p1")].tags = {{"zone", "z1"}, {"cluster", "c1"}};  // source: the standby
  c.clients[*c.find_client("p2")].tags = std::move(destination_tags);
  c.clients[*c.find_client("p3")].tags = {{"zone", "z3"}, {"cluster", "c2"}};  // the active
  AssignmentDraft d(c, 1);
  d.set_active(0, *c.find_client("p3"));
  d.add_standby(0, *c.find_client("p1"));
  return {std::move(c), std::move(d)};
}

bool allowed(const Tagged& t) {
  return keeps_tag_spread(t.cluster, {"zone", "cluster"}, t.draft, *t.cluster.find_client("p1"),
                          *t.cluster.find_client("p2"), 0);
}

TEST(KafkaTagMovement, PermittedWhenTheTagsMatch) {  // shouldPermitSingleTaskMoveWhenClientTagMatch
  EXPECT_TRUE(allowed(three_clients({{"zone", "z1"}, {"cluster", "c1"}})));
}

TEST(KafkaTagMovement, PermittedWhenTheCountOfDistinctTagsStays) {  // ...WhenDifferentClientTagCountNotChange
  EXPECT_TRUE(allowed(three_clients({{"zone", "z2"}, {"cluster", "c1"}})));
}

TEST(KafkaTagMovement,
     DeclinedWhenTheCountOfDistinctTagsDrops) {  // shouldDeclineSingleTaskMoveWhenReduceClientTagCount
  // The destination's zone is the active's: the task's copies would span one zone fewer.
  EXPECT_FALSE(allowed(three_clients({{"zone", "z3"}, {"cluster", "c1"}})));
}

}  // namespace
}  // namespace assignor::plugins::kafka_ha
