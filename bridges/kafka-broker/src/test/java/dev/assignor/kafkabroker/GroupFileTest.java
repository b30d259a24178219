package dev.assignor.kafkabroker;

import com.fasterxml.jackson.databind.JsonNode;

import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.FallbackReason;
import dev.assignor.kafkastreams.TestSupport;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The KIP-1071 group as a cluster file, against the hand-worked group of {@link Groups}. */
class GroupFileTest {
    @Test
    void theHandWorkedGroup() throws Exception {
        final GroupFile file = GroupFile.of(Groups.group(1), Groups.topology());
        final JsonNode cluster = TestSupport.parse(file.json());
        // Tasks: 0_0..0_2 logged (end offsets: reported 600 and 400; 0_2 none reported, its largest offset 50),
        // 1_0 and 1_1 stateless.
        assertEquals("[{\"id\":\"0_0\",\"stores\":[{\"name\":\"changelog\",\"changelog_end_offset\":600}]},"
            + "{\"id\":\"0_1\",\"stores\":[{\"name\":\"changelog\",\"changelog_end_offset\":400}]},"
            + "{\"id\":\"0_2\",\"stores\":[{\"name\":\"changelog\",\"changelog_end_offset\":50}]},"
            + "{\"id\":\"1_0\"},{\"id\":\"1_1\"}]", cluster.get("tasks").toString());
        final JsonNode p1 = cluster.get("clients").get(0);
        final JsonNode p2 = cluster.get("clients").get(1);
        assertEquals("p1", p1.get("id").asText());
        assertEquals(1, p1.get("threads").asInt());
        assertEquals("r1", p1.get("rack").asText());
        assertFalse(p1.has("tags"));
        assertEquals("[\"0_2\",\"1_0\"]", p1.get("previous_active").toString());
        assertEquals("[\"0_0\"]", p1.get("previous_standby").toString(), "a warmup is a previous copy");
        assertEquals("{\"0_0\":100,\"0_2\":-2}", p1.get("offset_sums").toString());
        assertEquals("{\"m-c\":{\"active\":[\"0_2\",\"1_0\"],\"standby\":[\"0_0\"]}}",
            p1.get("previous_by_thread").toString());
        assertEquals("p2", p2.get("id").asText());
        assertEquals(2, p2.get("threads").asInt());
        assertEquals("{\"zone\":\"z2\"}", p2.get("tags").toString());
        assertEquals("[\"0_0\",\"1_1\"]", p2.get("previous_active").toString());
        assertEquals("[\"0_1\",\"0_2\"]", p2.get("previous_standby").toString(),
            "0_2 is active on p1 too: the first client keeps it, here it is a previous copy");
        assertEquals("{\"0_0\":500,\"0_1\":300,\"0_2\":50}", p2.get("offset_sums").toString(),
            "offsets of tasks this topology has not (7_0, 0_9) are left out");
        assertEquals("{\"m-a\":{\"active\":[\"0_0\",\"1_1\"],\"standby\":[\"0_1\"]},\"m-b\":{\"active\":[],"
            + "\"standby\":[\"0_2\"]}}", p2.get("previous_by_thread").toString(), "every member is a thread, by id");
        assertEquals(3, file.memberCount());
        assertEquals(3, file.loggedTasks());
        assertTrue(file.isThreadOf(1, "m-b"));
        assertFalse(file.isThreadOf(0, "m-b"));
    }

    @Test
    void subtopologyIdsMustBeNumbers() {
        for (final String bad : List.of("a", "01", "-1")) {
            final BridgeException e = assertThrows(BridgeException.class,
                () -> GroupFile.of(Groups.group(0), Groups.topology(List.of("0", bad))));
            assertEquals(FallbackReason.MAPPING, e.reason());
            assertTrue(e.getMessage().contains("sub-topology id '" + bad + "' is not a number"), e.getMessage());
        }
    }
}
