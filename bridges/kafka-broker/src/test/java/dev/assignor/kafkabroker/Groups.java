package dev.assignor.kafkabroker;

import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;

/**
 * A small streams group worked by hand, as the group coordinator hands it to an assignor: sub-topology
 * "0" (3 partitions, stateful) and "1" (2 partitions, stateless; so is any other given); process p1 with member m-c (rack r1),
 * process p2 with members m-a and m-b (rack r2, tag zone=z2).
 * <pre>
 *   m-a (p2): active 0_0, 1_1; standby 0_1; offsets 0_0=500, 0_1=300; end offsets 0_1=400
 *   m-b (p2): active 0_2 (also m-c's); offsets 0_2=50, and tasks this topology has not (7_0, 0_9)
 *   m-c (p1): active 0_2, 1_0; warmup 0_0; offsets 0_0=100, 0_2=-2 (running); end offsets 0_0=600
 * </pre>
 */
final class Groups {
    private Groups() {
    }

    static TopologyDescriber topology(final List<String> subtopologies) {
        return new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return subtopologies;
            }

            @Override
            public int maxNumInputPartitions(final String subtopology) {
                if (!subtopologies.contains(subtopology)) {
                    throw new NoSuchElementException(subtopology);
                }
                return subtopology.equals("0") ? 3 : 2;
            }

            @Override
            public boolean isStateful(final String subtopology) {
                return subtopology.equals("0");
            }
        };
    }

    static TopologyDescriber topology() {
        return topology(List.of("0", "1"));
    }

    static GroupSpecImpl group(final int standbys) {
        return new GroupSpecImpl(Map.of(
            "m-a", new MemberMetadataAndStateImpl(Optional.empty(), Optional.of("r2"), "p2", Map.of("zone", "z2"),
                Map.of("0", Set.of(0), "1", Set.of(1)), Map.of("0", Set.of(1)), Map.of(),
                Map.of("0", Map.of(0, 500L, 1, 300L)), Map.of("0", Map.of(1, 400L))),
            "m-b", new MemberMetadataAndStateImpl(Optional.empty(), Optional.of("r2"), "p2", Map.of("zone", "z2"),
                Map.of("0", Set.of(2)), Map.of(), Map.of(),
                Map.of("0", Map.of(2, 50L, 9, 1L), "7", Map.of(0, 5L)), Map.of()),
            "m-c", new MemberMetadataAndStateImpl(Optional.empty(), Optional.of("r1"), "p1", Map.of(),
                Map.of("0", Set.of(2), "1", Set.of(0)), Map.of(), Map.of("0", Set.of(0)),
                Map.of("0", Map.of(0, 100L, 2, -2L)), Map.of("0", Map.of(0, 600L)))),
            new AssignmentConfigsImpl(standbys, List.of()));
    }
}
