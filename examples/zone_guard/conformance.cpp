// The conformance kit on zone_guard, with the property the strategy is for and cases of its own.
#include <assignor/conformance.hpp>
#include <assignor/standby_spread.hpp>

int main(int argc, char** argv) {
  using namespace assignor;
  conformance::Suite suite(this_plugin());
  // No standby shares a rack or a zone with its active where the clients leave another choice:
  // checked on the cases whose clients have three racks and three zones, independent of each other.
  suite.property("standbys in another rack and zone than their active", [](const conformance::Run& run) {
    if (run.test_case.spec.racks != 3 || run.test_case.spec.tags.size() != 1) return;
    const std::vector<std::string> zone{"zone"};
    const StandbyDomains domains(run.cluster, DomainKeys{.rack = true, .tags = zone});
    EXPECT_EQ(colocated_standbys(domains, run.assignment), 0u);
  });
  for (ScenarioKind kind : {ScenarioKind::scale_out, ScenarioKind::scale_in, ScenarioKind::rolling_restart}) {
    conformance::Case c;
    c.name = "racks_and_zones_" + std::string(to_string(kind));
    c.spec.kind = kind;
    c.spec.clients = 18;
    c.spec.threads = 2;
    c.spec.subtopologies = 4;
    c.spec.partitions = 12;
    c.spec.racks = 3;
    c.spec.tags = {{"zone", 3}};
    c.spec.seed = 33;
    c.settings.num_standby_replicas = 2;
    c.settings.rack_aware.tags = {"zone"};
    suite.add_case(c);
  }
  return suite.run(argc, argv);
}
