package dev.assignor.bridge;

import org.apache.kafka.common.config.ConfigDef;

import java.util.List;

/**
 * A bridge's settings as a Markdown table, generated from its {@link ConfigDef} (docs/bridge.md holds
 * the tables; a test fails when they differ from what this prints).
 */
public final class ConfigDocs {
    private ConfigDocs() {
    }

    public static String markdown(final ConfigDef definition) {
        final StringBuilder out = new StringBuilder("| setting | type | default | valid values | meaning |\n"
            + "|---|---|---|---|---|\n");
        final List<ConfigDef.ConfigKey> keys = definition.configKeys().values().stream()
            .sorted((a, b) -> a.name.compareTo(b.name)).toList();
        for (final ConfigDef.ConfigKey key : keys) {
            out.append("| `").append(key.name).append("` | ")
                .append(key.type.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                .append(defaultText(key)).append(" | ")
                .append(key.validator == null ? "" : escape(key.validator.toString())).append(" | ")
                .append(escape(key.documentation)).append(" |\n");
        }
        return out.toString();
    }

    private static String defaultText(final ConfigDef.ConfigKey key) {
        if (!key.hasDefault() || key.defaultValue == null) {
            return "(none)";
        }
        final String text = key.defaultValue instanceof List<?> list ? String.join(",", list.stream()
            .map(String::valueOf).toList()) : String.valueOf(key.defaultValue);
        return text.isEmpty() ? "(none)" : "`" + text + "`";
    }

    private static String escape(final String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
