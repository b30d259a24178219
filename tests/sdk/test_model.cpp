#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assignor/model.hpp"
#include "assignor/task_id.hpp"
#include "cluster_builder.hpp"

namespace assignor {
namespace {

using testing::ClusterBuilder;

TEST(TaskId, ParsesAndOrdersBySubtopologyThenPartition) {
  EXPECT_EQ(parse_task_id("3_17"), (TaskId{3, 17}));
  EXPECT_LT((TaskId{1, 10}), (TaskId{2, 0}));
  EXPECT_LT((TaskId{1, 2}), (TaskId{1, 10}));
  EXPECT_EQ(to_string(TaskId{12, 0}), "12_0");
}

TEST(TaskId, RejectsMalformedIds) {
  for (const char* bad : {"", "_", "1_", "_1", "1-2", "a_1", "1_b", "-1_0", "1_-0", "+1_0", "1_2_3", " 1_2", "1_2 ",
                          "99999999999_0", "00_01", "0_01", "01_0", "00_0"})
    EXPECT_FALSE(parse_task_id(bad).has_value()) << bad;
  // Zero itself is written "0".
  EXPECT_EQ(parse_task_id("0_0"), (TaskId{0, 0}));
  EXPECT_EQ(parse_task_id("10_100"), (TaskId{10, 100}));
}

TEST(Cluster, FinalizeSortsTasksAndClientsAndRemapsIndices) {
  const Cluster c = ClusterBuilder()
                        .stateful("1_0", 10)
                        .stateless("0_10")
                        .stateless("0_2")
                        .client("zeta")
                        .previous_active({"1_0"})
                        .client("alpha")
                        .previous_active({"0_10", "0_2"})
                        .build();
  ASSERT_EQ(c.tasks.size(), 3u);
  EXPECT_EQ(to_string(c.tasks[0].id), "0_2");
  EXPECT_EQ(to_string(c.tasks[1].id), "0_10");
  EXPECT_EQ(to_string(c.tasks[2].id), "1_0");
  EXPECT_EQ(c.clients[0].id, "alpha");
  EXPECT_EQ(c.clients[0].previous_active, (std::vector<TaskIndex>{0, 1}));
  EXPECT_EQ(c.clients[1].previous_active, (std::vector<TaskIndex>{2}));
  EXPECT_EQ(c.previous_active_owner()[2], 1u);
  EXPECT_EQ(c.find_client("zeta"), 1u);
  EXPECT_FALSE(c.find_client("nobody").has_value());
}

TEST(Cluster, FinalizeRejectsTwoPreviousActiveOwners) {
  EXPECT_THROW(ClusterBuilder()
                   .stateless("0_0")
                   .client("a")
                   .previous_active({"0_0"})
                   .client("b")
                   .previous_active({"0_0"})
                   .build(),
               std::invalid_argument);
}

TEST(Cluster, FinalizeRejectsDuplicateIds) {
  EXPECT_THROW(ClusterBuilder().stateless("0_0").stateless("0_0").client("a").build(), std::invalid_argument);
  EXPECT_THROW(ClusterBuilder().stateless("0_0").client("a").client("a").build(), std::invalid_argument);
}

TEST(Cluster, TasksOfASubtopologyAreOneRunInPartitionOrder) {
  // Built out of order: the range is taken after finalize() sorted the tasks.
  const Cluster c = ClusterBuilder()
                        .stateless("2_1")
                        .stateful("0_0", 5)
                        .stateless("2_0")
                        .stateless("7_3")
                        .stateful("2_10", 5)
                        .stateless("0_1")
                        .client("a")
                        .build();
  std::vector<std::string> ids;
  for (TaskIndex t : c.tasks_of_subtopology(2)) ids.push_back(to_string(c.tasks[t].id));
  EXPECT_EQ(ids, (std::vector<std::string>{"2_0", "2_1", "2_10"}));
  EXPECT_EQ(c.tasks_of_subtopology(0).size(), 2u);
  EXPECT_EQ(c.tasks_of_subtopology(7).size(), 1u);
  EXPECT_TRUE(c.tasks_of_subtopology(1).empty());  // a gap between ids
  EXPECT_TRUE(c.tasks_of_subtopology(9).empty());  // past the last one
  EXPECT_TRUE(c.tasks_of_subtopology(-1).empty());
  EXPECT_EQ(c.subtopologies(), (std::vector<std::int32_t>{0, 2, 7}));
  EXPECT_TRUE(ClusterBuilder().client("a").build().subtopologies().empty());
}

TEST(Cluster, CountsStatefulAndLoggedTasks) {
  const Cluster c = ClusterBuilder()
                        .stateful("0_0", 5)
                        .mixed("0_1", 5)
                        .nonlogged("0_2")
                        .stateless("1_0")
                        .stateless("1_1")
                        .client("a")
                        .build();
  EXPECT_EQ(c.stateful_task_count(), 3u);  // 0_0, 0_1 and the non-logged 0_2
  EXPECT_EQ(c.logged_task_count(), 2u);    // 0_0 and 0_1 get standbys and warmups
}

}  // namespace
}  // namespace assignor
