package dev.assignor.kafkastreams;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The bridge's log lines while it is open: "LEVEL message". */
final class LogCapture extends AbstractAppender implements AutoCloseable {
    private final List<String> lines = new ArrayList<>();
    private final org.apache.logging.log4j.core.Logger logger;

    LogCapture() {
        super("capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
        logger = ((LoggerContext) LogManager.getContext(false)).getLogger(AssignorTaskAssignor.class.getName());
        start();
        logger.addAppender(this);
    }

    @Override
    public synchronized void append(final LogEvent event) {
        lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
    }

    synchronized List<String> lines() {
        return new ArrayList<>(lines);
    }

    synchronized List<String> at(final Level level) {
        return lines.stream().filter(l -> l.startsWith(level + " ")).collect(Collectors.toList());
    }

    @Override
    public void close() {
        logger.removeAppender(this);
        stop();
    }
}
