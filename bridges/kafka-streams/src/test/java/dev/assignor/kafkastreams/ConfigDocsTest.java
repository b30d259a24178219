package dev.assignor.kafkastreams;

import dev.assignor.bridge.ConfigDocs;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/bridge.md's settings table is the one the bridge's ConfigDef generates (keys, types, defaults, docs). */
public class ConfigDocsTest {
    /** Fails when docs/bridge.md does not hold {@code definition}'s table, printing the table it should hold. */
    public static void documented(final ConfigDef definition) throws Exception {
        final Path docs = Paths.get(System.getProperty("assignor.docs", "../../docs")).resolve("bridge.md");
        final String page = Files.readString(docs);
        final String table = ConfigDocs.markdown(definition);
        assertTrue(page.contains(table), docs + " does not hold the settings table the ConfigDef generates; it should "
            + "read:\n" + table);
    }

    @Test
    void theStreamsBridgesSettingsAreDocumented() throws Exception {
        documented(BridgeSettings.CONFIG_DEF);
    }
}
