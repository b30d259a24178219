package dev.assignor.kafkabroker;

import dev.assignor.kafkastreams.ConfigDocsTest;

import org.junit.jupiter.api.Test;

/** docs/bridge.md's settings table is the one the broker bridge's ConfigDef generates too. */
class BrokerConfigDocsTest {
    @Test
    void theBrokerBridgesSettingsAreDocumented() throws Exception {
        ConfigDocsTest.documented(BrokerSettings.CONFIG_DEF);
    }
}
