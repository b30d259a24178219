package dev.assignor.bridge;

import java.util.List;
import java.util.OptionalInt;

/**
 * Kafka's assignment settings (DESIGN 2) as the host's config writes them ({@code assignment:}, in
 * Assignor's names and with the same defaults). Kafka Streams gives all of them
 * ({@code AssignmentConfigs}); the broker gives the group's standby count and rack-aware tags, the
 * rest comes from its {@code group.streams.*} settings.
 */
public record AssignmentSettings(long acceptableRecoveryLag, int maxWarmupReplicas, int numStandbyReplicas,
                                 long probingRebalanceIntervalMs, String rackAwareStrategy, OptionalInt trafficCost,
                                 OptionalInt nonOverlapCost, List<String> rackAwareTags) {
    public AssignmentSettings {
        rackAwareTags = List.copyOf(rackAwareTags);
    }
}
