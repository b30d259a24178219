// make_strategy() and this_plugin(): how an author tests a plugin without loading a library. This
// test binary compiles one plugin in, as an author's test would.
#include <gtest/gtest.h>

#include "assignor/sdk.hpp"
#include "cluster_builder.hpp"

namespace {

using namespace assignor;

int alive = 0;  // strategies made and not yet destroyed

class EveryoneToTheFirstClient final : public Strategy {
 public:
  explicit EveryoneToTheFirstClient(const StrategyParams& params) : standbys_(params.get_bool("standbys", false)) {
    params.reject_unknown({"standbys"});
    ++alive;
  }
  ~EveryoneToTheFirstClient() override { --alive; }
  Assignment assign(const AssignmentInput& in) override {
    AssignmentDraft draft(in.cluster, standbys_ ? in.settings.num_standby_replicas : 0);
    for (TaskIndex t = 0; t < in.cluster.task_count(); ++t) draft.set_active(t, 0);
    return draft.finish(false);
  }

 private:
  bool standbys_;
};

}  // namespace

ASSIGNOR_PLUGIN(EveryoneToTheFirstClient, "first_client", "0.1.0", "test plugin", 0)

namespace assignor {
namespace {

TEST(InProcessPlugin, ThisPluginIsTheDescriptorTheMacroExports) {
  EXPECT_STREQ(this_plugin().name, "first_client");
  EXPECT_EQ(this_plugin().api_version, kPluginApiVersion);
  EXPECT_STREQ(this_plugin().fingerprint, kBuildFingerprint);
  const auto* exported = ::assignor_plugin_entry();  // what the host calls in the library
  EXPECT_EQ(exported, &this_plugin());
  // The name note (plugin.hpp) carries the descriptor's name, laid out as an ELF note: header
  // (owner size 9, name size with its NUL, type), "Assignor" padded to 12 bytes, the name.
  const auto& note = assignor_plugin_detail::name_note;
  EXPECT_EQ(note.owner_size, 9u);
  EXPECT_EQ(note.name_size, sizeof("first_client"));
  EXPECT_EQ(note.type, kPluginNameNoteType);
  EXPECT_STREQ(note.owner, "Assignor");
  EXPECT_STREQ(note.name, "first_client");
  EXPECT_EQ(sizeof note, 12u + 12u + 16u);  // "first_client" and its NUL: 13 bytes, padded to 16
  EXPECT_EQ(alignof(decltype(note)), 4u);
}

TEST(InProcessPlugin, MakeStrategyCreatesAndDestroysThroughTheDescriptor) {
  const Cluster cluster = testing::ClusterBuilder().stateless("0_0").stateless("0_1").client("a").client("b").build();
  AssignmentSettings settings;
  const LagModel lags(cluster, settings);
  {
    StrategyPtr strategy = make_strategy(this_plugin());
    EXPECT_EQ(alive, 1);
    const Assignment out = strategy->assign({cluster, settings, lags});
    ASSERT_EQ(out.actives.size(), 2u);
    EXPECT_EQ(out.actives[0].client, 0u);
    EXPECT_EQ(out.actives[1].client, 0u);
  }
  EXPECT_EQ(alive, 0);
}

StrategyParams params(const std::string& key, const std::string& value) {
  return StrategyParams(std::map<std::string, std::string>{{key, value}});
}

TEST(InProcessPlugin, MakeStrategyPassesParametersAndTheirErrors) {
  EXPECT_NO_THROW(make_strategy(this_plugin(), params("standbys", "true")));
  EXPECT_THROW(make_strategy(this_plugin(), params("standby", "true")), ConfigError);
  EXPECT_EQ(alive, 0);
}

Strategy* create_nothing(const StrategyParams&) { return nullptr; }
void destroy_nothing(Strategy*) noexcept {}

TEST(InProcessPlugin, AFactoryReturningNullIsAStrategyError) {
  PluginDescriptor broken = this_plugin();
  broken.create = &create_nothing;
  broken.destroy = &destroy_nothing;
  EXPECT_THROW(make_strategy(broken), StrategyError);
}

}  // namespace
}  // namespace assignor
