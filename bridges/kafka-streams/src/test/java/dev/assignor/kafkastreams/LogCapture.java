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

/** A logger's lines (the Streams bridge's by default) while it is open: "LEVEL message". */
public final class LogCapture extends AbstractAppender implements AutoCloseable {
    private final List<String> lines = new ArrayList<>();
    private final org.apache.logging.log4j.core.Logger logger;

    LogCapture() {
        this(AssignorTaskAssignor.class);
    }

    public LogCapture(final Class<?> of) {
        super("capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
        logger = ((LoggerContext) LogManager.getContext(false)).getLogger(of.getName());
        start();
        logger.addAppender(this);
    }

    @Override
    public synchronized void append(final LogEvent event) {
        lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
    }

    public synchronized List<String> lines() {
        return new ArrayList<>(lines);
    }

    public synchronized List<String> at(final Level level) {
        return lines.stream().filter(l -> l.startsWith(level + " ")).collect(Collectors.toList());
    }

    @Override
    public void close() {
        logger.removeAppender(this);
        stop();
    }
}
