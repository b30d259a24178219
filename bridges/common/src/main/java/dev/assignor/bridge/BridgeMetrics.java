package dev.assignor.bridge;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A bridge's metrics, in the platform MBean server under Kafka's naming style (kebab-case attributes
 * on an object named {@code <domain>:type=...,<tag>=...}; docs/bridge.md lists them): rebalances
 * decided by the strategy, fallbacks by reason, the strategy's time and the whole assignment's time,
 * and what the strategy's decisions did (active moves, restoring actives, warmups, as the host's
 * metrics count them). One instance per object name in a JVM, kept for the JVM's life (Kafka Streams
 * makes a new task assignor at every rebalance; the counts must outlive it).
 */
public final class BridgeMetrics implements DynamicMBean {
    private static final Map<String, BridgeMetrics> BY_NAME = new ConcurrentHashMap<>();

    private final String objectName;
    private long decided;
    private final long[] fallbacks = new long[FallbackReason.values().length];
    private long strategyMsCount;
    private double strategyMsSum;
    private double strategyMsMax;
    private double strategyMsLast = Double.NaN;
    private double totalMsSum;
    private double totalMsMax;
    private double totalMsLast = Double.NaN;
    private long activeMoves;
    private long restoringActives;
    private long warmups;
    private final Map<String, MBeanAttributeInfo> infos = new LinkedHashMap<>();
    private final Map<String, Supplier<Object>> values = new LinkedHashMap<>();

    private BridgeMetrics(final String objectName) {
        this.objectName = objectName;
        attribute("rebalances-total", "long", "Rebalances the bridge was asked to assign.",
            () -> decided + sum(fallbacks));
        attribute("rebalances-decided", "long", "Rebalances whose assignment the strategy decided.", () -> decided);
        attribute("fallbacks-total", "long", "Rebalances assigned by Kafka's own assignor instead.",
            () -> sum(fallbacks));
        for (final FallbackReason reason : FallbackReason.values()) {
            attribute("fallbacks-" + reason.metricName(), "long", "Fallbacks because of: " + reason.metricName() + ".",
                () -> fallbacks[reason.ordinal()]);
        }
        attribute("strategy-time-ms-avg", "double", "The strategy's own time (the host's assign_ms), mean.",
            () -> strategyMsCount == 0 ? Double.NaN : strategyMsSum / strategyMsCount);
        attribute("strategy-time-ms-max", "double", "The strategy's own time, longest.", () -> strategyMsMax);
        attribute("strategy-time-ms-last", "double", "The strategy's own time, last decision.", () -> strategyMsLast);
        attribute("total-time-ms-avg", "double", "The whole assignment in the bridge (fallbacks included), mean.",
            () -> decided + sum(fallbacks) == 0 ? Double.NaN : totalMsSum / (decided + sum(fallbacks)));
        attribute("total-time-ms-max", "double", "The whole assignment in the bridge, longest.", () -> totalMsMax);
        attribute("total-time-ms-last", "double", "The whole assignment in the bridge, last rebalance.",
            () -> totalMsLast);
        attribute("active-moves-total", "long", "Active tasks the strategy's decisions moved (host metric active_moves).",
            () -> activeMoves);
        attribute("restoring-actives-total", "long", "Actives placed on a restoring client while a caught-up one "
            + "existed (host metric restoring_actives).", () -> restoringActives);
        attribute("warmups-total", "long", "Warmup copies the strategy's decisions placed.", () -> warmups);
    }

    /** The metrics object named {@code objectName}, registered in the platform MBean server on first use. */
    public static BridgeMetrics named(final String objectName) {
        return BY_NAME.computeIfAbsent(objectName, name -> {
            final BridgeMetrics m = new BridgeMetrics(name);
            try {
                final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                final ObjectName on = new ObjectName(name);
                if (!server.isRegistered(on)) {
                    server.registerMBean(m, on);
                }
            } catch (final JMException | RuntimeException e) {
                // No JMX (or a name another class loader took): the counts are still kept.
            }
            return m;
        });
    }

    /** A value for an object name's tag: Kafka's rule, quoted when it holds characters JMX reserves. */
    public static String tagValue(final String value) {
        return value.matches("[A-Za-z0-9._\\-]*") ? value : ObjectName.quote(value);
    }

    public String objectName() {
        return objectName;
    }

    /** A rebalance the strategy decided. Negative counts (not reported by the host) are not added. */
    public synchronized void decided(final double totalMs, final double strategyMs, final long moves,
                                     final long restoring, final int warmupCopies) {
        ++decided;
        total(totalMs);
        if (!Double.isNaN(strategyMs)) {
            ++strategyMsCount;
            strategyMsSum += strategyMs;
            strategyMsMax = Math.max(strategyMsMax, strategyMs);
            strategyMsLast = strategyMs;
        }
        activeMoves += Math.max(0, moves);
        restoringActives += Math.max(0, restoring);
        warmups += Math.max(0, warmupCopies);
    }

    /** A rebalance Kafka's own assignor decided, and why. */
    public synchronized void fellBack(final FallbackReason reason, final double totalMs) {
        ++fallbacks[reason.ordinal()];
        total(totalMs);
    }

    private void total(final double ms) {
        totalMsSum += ms;
        totalMsMax = Math.max(totalMsMax, ms);
        totalMsLast = ms;
    }

    private static long sum(final long[] values) {
        long s = 0;
        for (final long v : values) {
            s += v;
        }
        return s;
    }

    private void attribute(final String name, final String type, final String description,
                           final Supplier<Object> value) {
        infos.put(name, new MBeanAttributeInfo(name, "long".equals(type) ? Long.class.getName()
            : Double.class.getName(), description, true, false, false));
        values.put(name, value);
    }

    @Override
    public synchronized Object getAttribute(final String attribute) throws AttributeNotFoundException {
        final Supplier<Object> value = values.get(attribute);
        if (value == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return value.get();
    }

    @Override
    public void setAttribute(final Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public synchronized AttributeList getAttributes(final String[] attributes) {
        final AttributeList out = new AttributeList();
        for (final String a : attributes) {
            final Supplier<Object> value = values.get(a);
            if (value != null) {
                out.add(new Attribute(a, value.get()));
            }
        }
        return out;
    }

    @Override
    public AttributeList setAttributes(final AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(final String actionName, final Object[] params, final String[] signature) {
        throw new UnsupportedOperationException(actionName);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        final List<MBeanAttributeInfo> list = new ArrayList<>(infos.values());
        return new MBeanInfo(BridgeMetrics.class.getName(), "Assignor bridge: rebalances, fallbacks, times",
            list.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }
}
