package dev.assignor.bridge;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The metrics as JMX shows them: read back through the platform MBean server, Kafka-style names. */
class BridgeMetricsTest {
    @Test
    void countsAndTimesThroughThePlatformMBeanServer() throws Exception {
        final String name = "kafka.test.assignor:type=assignor-bridge-metrics,application-id=metrics-test";
        final BridgeMetrics m = BridgeMetrics.named(name);
        assertSame(m, BridgeMetrics.named(name), "one instance per name in a JVM");
        m.decided(10.0, 2.0, 3, 1, 2);
        m.decided(30.0, 4.0, 5, 0, 0);
        m.fellBack(FallbackReason.TIMEOUT, 50.0);
        m.fellBack(FallbackReason.TIMEOUT, 10.0);
        m.fellBack(FallbackReason.SETTINGS, 0.0);
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final ObjectName on = new ObjectName(name);
        assertEquals(5L, server.getAttribute(on, "rebalances-total"));
        assertEquals(2L, server.getAttribute(on, "rebalances-decided"));
        assertEquals(3L, server.getAttribute(on, "fallbacks-total"));
        assertEquals(2L, server.getAttribute(on, "fallbacks-timeout"));
        assertEquals(1L, server.getAttribute(on, "fallbacks-settings"));
        assertEquals(0L, server.getAttribute(on, "fallbacks-crash"));
        assertEquals(3.0, server.getAttribute(on, "strategy-time-ms-avg"));
        assertEquals(4.0, server.getAttribute(on, "strategy-time-ms-max"));
        assertEquals(20.0, server.getAttribute(on, "total-time-ms-avg"));
        assertEquals(50.0, server.getAttribute(on, "total-time-ms-max"));
        assertEquals(0.0, server.getAttribute(on, "total-time-ms-last"));
        assertEquals(8L, server.getAttribute(on, "active-moves-total"));
        assertEquals(1L, server.getAttribute(on, "restoring-actives-total"));
        assertEquals(2L, server.getAttribute(on, "warmups-total"));
        final List<String> names = new ArrayList<>();
        for (final MBeanAttributeInfo a : server.getMBeanInfo(on).getAttributes()) {
            names.add(a.getName());
            assertTrue(a.getName().matches("[a-z]+(-[a-z]+)*"), "Kafka's kebab-case: " + a.getName());
        }
        for (final FallbackReason r : FallbackReason.values()) {
            assertTrue(names.contains("fallbacks-" + r.metricName()), r.toString());
        }
    }

    @Test
    void tagValuesAreQuotedWhenJmxNeedsIt() throws Exception {
        assertEquals("word-count_app.1", BridgeMetrics.tagValue("word-count_app.1"));
        new ObjectName("a:type=t,application-id=" + BridgeMetrics.tagValue("odd,app=name:x"));
    }
}
