package ckptcheck.conform;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStoreUtils;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.helpers.NOPLogger;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * Retention: {@code DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints}
 * for the configured {@code execution.checkpointing.num-retained}, then, as
 * {@code DefaultCompletedCheckpointStore.addCheckpointAndSubsumeOldestOne} does after each add,
 * {@code CheckpointSubsumeHelper.subsume}. Answers the retained ids after each add.
 */
public final class Retention implements Server.Family {

    private static final Method SUBSUME;
    private static final Class<?> ACTION;

    static {
        try {
            Class<?> helper = Class.forName("org.apache.flink.runtime.checkpoint.CheckpointSubsumeHelper");
            ACTION = Class.forName("org.apache.flink.runtime.checkpoint.CheckpointSubsumeHelper$SubsumeAction");
            SUBSUME = helper.getDeclaredMethod("subsume", Deque.class, int.class, ACTION);
            SUBSUME.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new NoSuchMethodError("CheckpointSubsumeHelper.subsume: " + e);
        }
    }

    private static final CompletedCheckpointStorageLocation LOCATION = (CompletedCheckpointStorageLocation)
            Proxy.newProxyInstance(Retention.class.getClassLoader(),
                    new Class<?>[] {CompletedCheckpointStorageLocation.class},
                    (proxy, method, args) -> method.getName().equals("getExternalPointer") ? "memory" : null);

    private static final Object NO_ACTION = Proxy.newProxyInstance(
            Retention.class.getClassLoader(), new Class<?>[] {ACTION}, (proxy, method, args) -> null);

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        if (!op.equals("retained")) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, a.get(1).asInt());
        int retain = DefaultCompletedCheckpointStoreUtils.getMaximumNumberOfRetainedCheckpoints(
                config, NOPLogger.NOP_LOGGER);
        JobID job = new JobID();
        CheckpointProperties props =
                CheckpointProperties.forCheckpoint(CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION);
        Deque<CompletedCheckpoint> store = new ArrayDeque<>();
        List<List<Long>> out = new ArrayList<>();
        for (JsonNode id : a.get(0)) {
            store.addLast(new CompletedCheckpoint(job, id.asLong(), 0L, 0L, Collections.emptyMap(),
                    Collections.emptyList(), props, LOCATION, null));
            SUBSUME.invoke(null, store, retain, NO_ACTION);
            List<Long> ids = new ArrayList<>();
            store.forEach(c -> ids.add(c.getCheckpointID()));
            out.add(ids);
        }
        return out;
    }
}
