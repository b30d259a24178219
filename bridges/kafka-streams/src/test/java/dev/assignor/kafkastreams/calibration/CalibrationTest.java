package dev.assignor.kafkastreams.calibration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The calibration harness ({@link CalibrationHarness}) as tests. With -Dassignor.e2e=true (what
 * scripts/bridge-test runs), the short scale-out: one newcomer joins a group of two on a loopback
 * broker; the replay in time of its leader's log must count the rebalances the log counts, within
 * 15% (at least one either way). Counts only: times are measured and written down, never asserted
 * (the machine may be busy). With -Dassignor.calibration=all (scripts/calibrate), every scenario,
 * for the figures in docs/compare-and-simulate.md.
 */
class CalibrationTest {
    private static Path assignor() {
        final String p = System.getProperty("assignor.command", "");
        assumeTrue(!p.isBlank() && Files.isExecutable(Paths.get(p)), "no assignor command (-Dassignor.command=...)");
        return Paths.get(p).toAbsolutePath();
    }

    private static Path dir(final String name) {
        return Paths.get(System.getProperty("assignor.e2e.dir", "target/e2e")).toAbsolutePath().resolveSibling(name);
    }

    @Test
    @EnabledIfSystemProperty(named = "assignor.e2e", matches = "true")
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void theReplayInTimeCountsTheRebalancesOfAShortScaleOut() throws Exception {
        final List<CalibrationHarness.Result> results =
            CalibrationHarness.runAll(List.of(CalibrationHarness.SHORT_SCALE_OUT), dir("calibration-ci"), assignor());
        final CalibrationHarness.Result r = results.get(0);
        System.out.println(CalibrationHarness.table(results));
        final int tolerance = Math.max(1, (int) Math.floor(0.15 * r.realRebalances()));
        assertTrue(r.realRebalances() >= 2, "the scale-out logged " + r.realRebalances() + " rebalances");
        assertTrue(Math.abs(r.simRebalances() - r.realRebalances()) <= tolerance,
            "simulated " + r.simRebalances() + " rebalances against " + r.realRebalances() + " logged (from "
                + r.from() + "): more than " + tolerance + " apart");
    }

    @Test
    @EnabledIfSystemProperty(named = "assignor.calibration", matches = ".+")
    @Timeout(value = 150, unit = TimeUnit.MINUTES)
    void everyScenario() throws Exception {
        final List<CalibrationHarness.Scenario> scenarios = new ArrayList<>();
        final String which = System.getProperty("assignor.calibration");
        if (which.equals("all")) {
            scenarios.addAll(CalibrationHarness.ALL);
        } else {
            for (final String name : which.split(",")) {
                scenarios.add(CalibrationHarness.byName(name.trim()));
            }
        }
        final Path out = Paths.get(System.getProperty("assignor.calibration.dir", dir("calibration").toString()));
        final List<CalibrationHarness.Result> results = CalibrationHarness.runAll(scenarios, out, assignor());
        System.out.println(CalibrationHarness.table(results));
    }
}
