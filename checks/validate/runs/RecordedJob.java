package ckptcheck.runs;

import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.VoidSerializer;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichParallelSourceFunction;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * A job whose run is recorded for {@code ckptcheck validate}: source(P) -forward-> 2PC sink(P), on a
 * local MiniCluster, each in a task of its own (chaining off, so the edge is a network channel as
 * in the model's job {@code forward-PxP}).
 *
 * <p>Subtask i of the source reads split i: records (i, 0) .. (i, N-1), one every {@code throttle}
 * ms, its offset in operator state (a legacy {@code SourceFunction} with {@code CheckpointedFunction},
 * records emitted under the checkpoint lock). The sink is Flink's own {@code
 * TwoPhaseCommitSinkFunction}; its transaction is a list of records. Faults come from a schedule
 * in the arguments, injected by the job's own operators on the first attempt only: the sink
 * subtask named fails when it is handed the record named, or takes its snapshot of the
 * checkpoint named so slowly that the checkpoint expires.
 *
 * <p>Every event is one JSON line with one sequence number across the MiniCluster's threads
 * (format {@code ckptcheck-run} version 1, documented in the README): the operators' own (records
 * emitted and written, snapshots, notifications, transactions committed and aborted, starts with
 * the checkpoint restored) and the CheckpointCoordinator's log lines of triggers and completions.
 *
 * <p>Arguments: OUT N P INTERVAL_MS THROTTLE_MS FAULT TIMEOUT_MS, where FAULT is "none",
 * "sink:SUBTASK:OFFSET" (sink subtask SUBTASK fails at record (SUBTASK, OFFSET)) or
 * "slow:SUBTASK:CHECKPOINT" (sink subtask SUBTASK's snapshot of CHECKPOINT takes three times
 * TIMEOUT_MS, the checkpoint timeout, so the checkpoint expires) or "throw:SUBTASK:CHECKPOINT" (that
 * snapshot throws after its pre-commit: a failure of the synchronous part fails the task). The job
 * "keyed-rescale" is the keyed job with checkpoints retained on cancellation: once one completed,
 * the driver cancels it and starts it again from the latest retained checkpoint with the sink at
 * parallelism 2, recording a "rescale" event in between. The job "keyed-restart-aligned" is the
 * same, but the second job keeps the sink at parallelism 1 and runs with unaligned checkpoints off.
 */
public class RecordedJob {
    private static final AtomicLong SEQ = new AtomicLong();
    private static final AtomicLong COMPLETED_CHECKPOINTS = new AtomicLong();
    /** 1, or 2 for the second job of a restart at another parallelism (no fault is injected there). */
    static volatile int phase = 1;
    private static PrintWriter out;

    static synchronized void record(String body) {
        out.println("{\"seq\": " + SEQ.incrementAndGet() + ", " + body + "}");
        out.flush();
    }

    static String records(List<List<Integer>> records) {
        StringBuilder b = new StringBuilder("[");
        for (int k = 0; k < records.size(); k++) {
            List<Integer> r = records.get(k);
            b.append(k == 0 ? "" : ", ").append("[").append(r.get(0)).append(", ").append(r.get(1)).append("]");
        }
        return b.append("]").toString();
    }

    /** Subtask i reads split i, one record every throttle ms; its offset is its state. */
    public static class SplitSource extends RichParallelSourceFunction<Tuple2<Integer, Integer>>
            implements CheckpointedFunction, CheckpointListener {
        private final int n;
        private final long throttle;
        private volatile boolean running = true;
        private transient int offset;
        private transient ListState<Integer> state;
        private transient ListState<Long> gate;
        private boolean gated;

        SplitSource(int n, long throttle) {
            this.n = n;
            this.throttle = throttle;
        }

        SplitSource gated() {
            this.gated = true;
            return this;
        }

        private int subtask() {
            return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            state = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("offset", Types.INT));
            if (gated) {
                gate = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("gate", GateSerializer.INSTANCE));
            }
            offset = 0;
            for (Integer o : state.get()) {
                offset = o;
            }
            record("\"event\": \"start\", \"task\": \"source\", \"subtask\": " + subtask() + ", \"restored\": "
                    + ctx.getRestoredCheckpointId().orElse(0) + ", \"position\": " + offset);
        }

        @Override
        public void run(SourceContext<Tuple2<Integer, Integer>> ctx) throws Exception {
            int split = subtask();
            while (running && offset < n) {
                Thread.sleep(throttle);
                synchronized (ctx.getCheckpointLock()) {
                    // recorded before it is handed on: the sink may write it before collect returns
                    record("\"event\": \"emit\", \"task\": \"source\", \"subtask\": " + split + ", \"record\": [" + split + ", " + offset + "]");
                    ctx.collect(Tuple2.of(split, offset));
                    offset++;
                }
            }
            // its end of input is not recorded: the task emits EndOfData later, from its mailbox
            // (a snapshot in between puts the barrier before it), which no source function sees
        }

        @Override
        public void cancel() {
            running = false;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            state.update(List.of(offset));
            if (gate != null) {  // written by the asynchronous part of the snapshot: GateSerializer
                gate.update(List.of(Gate.of(Gate.SOURCE + subtask(), ctx.getCheckpointId())));
            }
            record("\"event\": \"snapshot\", \"task\": \"source\", \"subtask\": " + subtask() + ", \"checkpoint\": "
                    + ctx.getCheckpointId() + ", \"position\": " + offset);
        }

        @Override
        public void notifyCheckpointComplete(long id) {
            record("\"event\": \"notify-complete\", \"task\": \"source\", \"subtask\": " + subtask() + ", \"checkpoint\": " + id);
        }

        @Override
        public void notifyCheckpointAborted(long id) {
            record("\"event\": \"notify-abort\", \"task\": \"source\", \"subtask\": " + subtask() + ", \"checkpoint\": " + id);
        }
    }

    /**
     * The late-confirmation schedule (job "keyed-incremental", fault "late-confirmation"): the
     * asynchronous part of a snapshot writes each gated operator's gate value through {@link
     * GateSerializer}, which holds it until the run reached a point. source[1]'s snapshot of
     * checkpoint 1 waits until the sink took its snapshot of 2 (so 1 is still pending then, with
     * max-concurrent-checkpoints 2, and the notice of 1 reaches the sink after its snapshot of 2);
     * source[1]'s snapshot of 2 waits until the sink took its snapshot of 3; the sink's snapshot of 3
     * waits until checkpoint 2 completed (its acknowledgement reaches the JobManager after 2
     * subsumed 1). Nothing else is changed: the sink's RocksDB backend, its incremental snapshots and
     * the JobManager's registry are Flink's. Each wait gives up after 20 s.
     */
    static final class Gate {
        static final long SINK = 100;
        static final long SOURCE = 200;
        static final java.util.Set<Long> SNAPSHOTTED = java.util.concurrent.ConcurrentHashMap.newKeySet();
        static final java.util.Set<Long> COMPLETED = java.util.concurrent.ConcurrentHashMap.newKeySet();
        static volatile boolean armed;

        static long of(long who, long checkpoint) {
            return who * 1000 + checkpoint;
        }

        static void snapshotted(long checkpoint) {
            SNAPSHOTTED.add(checkpoint);
        }

        static void hold(long value) {
            if (!armed || phase != 1) {
                return;
            }
            long who = value / 1000;
            long checkpoint = value % 1000;
            if (who == SOURCE + 1 && checkpoint <= 2) {
                await(SNAPSHOTTED, checkpoint + 1, 0);
            } else if (who == SINK && checkpoint == 3) {
                await(COMPLETED, 2, 200);
            }
        }

        private static void await(java.util.Set<Long> reached, long id, long after) {
            long deadline = System.currentTimeMillis() + 20_000;
            try {
                while (!reached.contains(id) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(5);
                }
                Thread.sleep(after);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A long's serializer whose serialize, in a snapshot's asynchronous part, holds a gate value. */
    public static final class GateSerializer extends TypeSerializerSingleton<Long> {
        static final GateSerializer INSTANCE = new GateSerializer();

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public Long createInstance() {
            return 0L;
        }

        @Override
        public Long copy(Long from) {
            return from;
        }

        @Override
        public Long copy(Long from, Long reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return 8;
        }

        @Override
        public void serialize(Long value, DataOutputView target) throws java.io.IOException {
            Gate.hold(value);
            target.writeLong(value);
        }

        @Override
        public Long deserialize(DataInputView source) throws java.io.IOException {
            return source.readLong();
        }

        @Override
        public Long deserialize(Long reuse, DataInputView source) throws java.io.IOException {
            return source.readLong();
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws java.io.IOException {
            target.writeLong(source.readLong());
        }

        @Override
        public TypeSerializerSnapshot<Long> snapshotConfiguration() {
            return new GateSnapshot();
        }

        /** Restores the serializer. */
        public static final class GateSnapshot extends SimpleTypeSerializerSnapshot<Long> {
            public GateSnapshot() {
                super(() -> INSTANCE);
            }
        }
    }

    /** A transaction of the sink: the records written into it, [split, offset] each. */
    public static class Txn {
        public int id;
        public List<List<Integer>> records = new ArrayList<>();

        public Txn() {}
    }

    /** Flink's TwoPhaseCommitSinkFunction; every call that touches the external system is recorded. */
    public static class TwoPhaseSink extends TwoPhaseCommitSinkFunction<Tuple2<Integer, Integer>, Txn, Void> {
        private final int failSubtask;
        private final int failSplit;
        private final int failOffset;
        private final int slowSubtask;
        private final long slowCheckpoint;
        private final long slowMs;
        private transient int next;
        private transient ValueState<Integer> seen;
        private transient ListState<Long> gate;
        private boolean keyed;
        private boolean gated;

        private final long delay;

        /** keyed-incremental: a keyed count per record in RocksDB (its sst files are the shared
         * files of incremental checkpoints); with {@code gated} the late-confirmation gates. */
        TwoPhaseSink withKeyedState(boolean gated) {
            this.keyed = true;
            this.gated = gated;
            return this;
        }

        TwoPhaseSink(int failSubtask, int failSplit, int failOffset, int slowSubtask, long slowCheckpoint, long slowMs, long delay) {
            super(TypeInformation.of(Txn.class).createSerializer(new SerializerConfigImpl()), VoidSerializer.INSTANCE);
            this.failSubtask = failSubtask;
            this.failSplit = failSplit;
            this.failOffset = failOffset;
            this.slowSubtask = slowSubtask;
            this.slowCheckpoint = slowCheckpoint;
            this.slowMs = slowMs;
            this.delay = delay;
        }

        private int subtask() {
            return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        }

        private String head() {
            return "\"task\": \"sink\", \"subtask\": " + subtask();
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            record("\"event\": \"start\", " + head() + ", \"restored\": " + ctx.getRestoredCheckpointId().orElse(0));
            super.initializeState(ctx);
            if (keyed) {
                seen = ctx.getKeyedStateStore().getState(new ValueStateDescriptor<>("seen", Types.INT));
            }
            if (gated) {
                gate = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("gate", GateSerializer.INSTANCE));
            }
        }

        @Override
        protected Txn beginTransaction() {
            Txn t = new Txn();
            // unique across attempts and across the two jobs of a restart at another parallelism
            t.id = 100_000 * (phase - 1) + 1000 * getRuntimeContext().getTaskInfo().getAttemptNumber() + next++;
            return t;
        }

        @Override
        protected void invoke(Txn txn, Tuple2<Integer, Integer> value, Context ctx) throws Exception {
            if (subtask() == failSubtask && value.f0 == failSplit && value.f1 == failOffset && phase == 1
                    && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
                record("\"event\": \"fail\", " + head() + ", \"record\": [" + value.f0 + ", " + value.f1 + "]");
                throw new RuntimeException("injected failure at record (" + value.f0 + ", " + value.f1 + ")");
            }
            txn.records.add(List.of(value.f0, value.f1));
            if (seen != null) {
                Integer was = seen.value();
                seen.update(was == null ? 1 : was + 1);
            }
            record("\"event\": \"invoke\", " + head() + ", \"record\": [" + value.f0 + ", " + value.f1 + "]");
            if (delay > 0) {
                Thread.sleep(delay);  // a slow sink: its input backs up (backpressure)
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            Txn open = currentTransaction();  // null after the first snapshot once finished
            record("\"event\": \"snapshot\", " + head() + ", \"checkpoint\": " + ctx.getCheckpointId()
                    + ", \"precommit\": " + records(open == null ? List.of() : open.records));
            if (gate != null) {
                Gate.snapshotted(ctx.getCheckpointId());
                gate.update(List.of(Gate.of(Gate.SINK, ctx.getCheckpointId())));
            }
            super.snapshotState(ctx);
            if (subtask() == slowSubtask && ctx.getCheckpointId() == slowCheckpoint && phase == 1
                    && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
                if (slowMs < 0) {  // a snapshot that throws after its pre-commit: Flink fails the task
                    record("\"event\": \"fail\", " + head());
                    throw new RuntimeException("injected snapshot failure of checkpoint " + slowCheckpoint);
                }
                Thread.sleep(slowMs);  // the checkpoint times out before this acknowledgement is sent
            }
        }

        @Override
        protected void finishProcessing(Txn txn) {
            record("\"event\": \"end-of-input\", " + head());
        }

        @Override
        protected void preCommit(Txn txn) {}

        @Override
        protected void commit(Txn txn) {
            record("\"event\": \"commit\", " + head() + ", \"txn\": " + txn.id + ", \"records\": " + records(txn.records));
        }

        @Override
        protected void abort(Txn txn) {
            record("\"event\": \"abort\", " + head() + ", \"txn\": " + txn.id + ", \"records\": " + records(txn.records));
        }

        @Override
        public void notifyCheckpointAborted(long id) {
            record("\"event\": \"notify-abort\", " + head() + ", \"checkpoint\": " + id);
            super.notifyCheckpointAborted(id);
        }
    }

    /** A Sink V2 sink with a committer: the writer's transaction, its committer's commits. */
    public static class V2 implements Sink<Tuple2<Integer, Integer>>, SupportsCommitter<Txn> {
        private final int failSubtask;
        private final int failOffset;

        V2(int failSubtask, int failOffset) {
            this.failSubtask = failSubtask;
            this.failOffset = failOffset;
        }

        @Override
        public SinkWriter<Tuple2<Integer, Integer>> createWriter(WriterInitContext ctx) {
            return new V2Writer(ctx.getTaskInfo().getIndexOfThisSubtask(), ctx.getTaskInfo().getAttemptNumber(),
                    ctx.getRestoredCheckpointId().orElse(0), failSubtask, failOffset);
        }

        @Override
        public Committer<Txn> createCommitter(CommitterInitContext ctx) {
            int subtask = ctx.getTaskInfo().getIndexOfThisSubtask();
            record("\"event\": \"start\", \"task\": \"committer\", \"subtask\": " + subtask + ", \"restored\": "
                    + ctx.getRestoredCheckpointId().orElse(0));
            return new Committer<Txn>() {
                @Override
                public void commit(java.util.Collection<CommitRequest<Txn>> requests) {
                    for (CommitRequest<Txn> r : requests) {
                        Txn t = r.getCommittable();
                        record("\"event\": \"commit\", \"task\": \"committer\", \"subtask\": " + subtask + ", \"txn\": "
                                + t.id + ", \"records\": " + records(t.records));
                    }
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public SimpleVersionedSerializer<Txn> getCommittableSerializer() {
            return new SimpleVersionedSerializer<Txn>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(Txn t) {
                    StringBuilder b = new StringBuilder().append(t.id);
                    for (List<Integer> r : t.records) {
                        b.append(' ').append(r.get(0)).append(',').append(r.get(1));
                    }
                    return b.toString().getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public Txn deserialize(int version, byte[] bytes) {
                    String[] parts = new String(bytes, StandardCharsets.UTF_8).split(" ");
                    Txn t = new Txn();
                    t.id = Integer.parseInt(parts[0]);
                    for (int k = 1; k < parts.length; k++) {
                        String[] r = parts[k].split(",");
                        t.records.add(List.of(Integer.parseInt(r[0]), Integer.parseInt(r[1])));
                    }
                    return t;
                }
            };
        }
    }

    /** The Sink V2 writer: records into the open transaction, handed to the committer at each checkpoint. */
    static class V2Writer implements CommittingSinkWriter<Tuple2<Integer, Integer>, Txn> {
        private final int subtask;
        private final int attempt;
        private final int failSubtask;
        private final int failOffset;
        private int next;
        private Txn open;

        V2Writer(int subtask, int attempt, long restored, int failSubtask, int failOffset) {
            this.subtask = subtask;
            this.attempt = attempt;
            this.failSubtask = failSubtask;
            this.failOffset = failOffset;
            begin();  // a writer without state records no start: nothing is restored into it
        }

        private void begin() {
            open = new Txn();
            open.id = 1000 * attempt + next++;
        }

        private String head() {
            return "\"task\": \"writer\", \"subtask\": " + subtask;
        }

        @Override
        public void write(Tuple2<Integer, Integer> value, Context ctx) {
            if (subtask == failSubtask && value.f1 == failOffset && attempt == 0) {
                record("\"event\": \"fail\", " + head() + ", \"record\": [" + value.f0 + ", " + value.f1 + "]");
                throw new RuntimeException("injected failure at record (" + value.f0 + ", " + value.f1 + ")");
            }
            open.records.add(List.of(value.f0, value.f1));
            record("\"event\": \"invoke\", " + head() + ", \"record\": [" + value.f0 + ", " + value.f1 + "]");
        }

        @Override
        public void flush(boolean endOfInput) {
            if (endOfInput) {
                record("\"event\": \"end-of-input\", " + head());
            }
        }

        @Override
        public java.util.Collection<Txn> prepareCommit() {
            Txn done = open;
            record("\"event\": \"prepare-commit\", " + head() + ", \"txn\": " + done.id + ", \"records\": " + records(done.records));
            begin();
            return done.records.isEmpty() ? List.of() : List.of(done);
        }

        @Override
        public void close() {}
    }

    private static final Pattern TRIGGER = Pattern.compile("^Triggering checkpoint (\\d+) ");
    private static final Pattern COMPLETED = Pattern.compile("^Completed checkpoint (\\d+) ");
    private static final Pattern FAILED = Pattern.compile("^Failed to trigger or complete checkpoint (\\d+) for job");
    private static final Pattern PRUNED = Pattern.compile("^Removed (\\d+) re-uploaded sst files from base file set");
    private static final Pattern BASED = Pattern.compile(
            "^Taking incremental snapshot for checkpoint (\\d+)\\. Snapshot is based on last completed checkpoint (-?\\d+)");
    private static final Pattern SUBTASK = Pattern.compile("^Sink: sink \\((\\d+)/\\d+\\)#");
    /** A backend's pruned base files, by thread, until its snapshot's next trace line names the checkpoint. */
    private static final java.util.Map<String, Long> PRUNED_FILES = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The CheckpointCoordinator's log lines of triggers and completions, and the
     * CheckpointFailureManager's of every failed checkpoint with its CheckpointFailureReason, as
     * events.
     */
    private static void listenToCoordinator() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        org.apache.logging.log4j.core.config.Configuration config = ctx.getConfiguration();
        AbstractAppender app = new AbstractAppender("ckptcheck", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent e) {
                String msg = e.getMessage().getFormattedMessage();
                Matcher m;
                Matcher sub = SUBTASK.matcher(e.getThreadName());
                if ((m = PRUNED.matcher(msg)).find()) {
                    // RocksDBSnapshotStrategyBase.PreviousSnapshot: confirmed files a newer snapshot uploaded again
                    PRUNED_FILES.put(e.getThreadName(), Long.parseLong(m.group(1)));
                    return;
                }
                if ((m = BASED.matcher(msg)).find()) {  // the sink's snapshot: was its base pruned?
                    Long files = PRUNED_FILES.remove(e.getThreadName());
                    if (files != null && sub.find()) {
                        record("\"event\": \"base-pruned\", \"task\": \"sink\", \"subtask\": " + (Integer.parseInt(sub.group(1)) - 1)
                                + ", \"checkpoint\": " + m.group(1) + ", \"base\": " + m.group(2) + ", \"files\": " + files);
                    }
                    return;
                }
                if ((m = TRIGGER.matcher(msg)).find()) {
                    record("\"event\": \"trigger\", \"task\": \"coordinator\", \"checkpoint\": " + m.group(1));
                } else if (msg.startsWith("Error while processing AcknowledgeCheckpoint message") && e.getThrown() != null
                        && String.valueOf(e.getThrown().getMessage()).startsWith("Attempt to reference unknown state")) {
                    // ExecutionGraphHandler: the SharedStateRegistry refused an acknowledgement's placeholder
                    record("\"event\": \"ack-refused\", \"task\": \"coordinator\"");
                } else if ((m = COMPLETED.matcher(msg)).find()) {
                    COMPLETED_CHECKPOINTS.incrementAndGet();
                    Gate.COMPLETED.add(Long.parseLong(m.group(1)));
                    record("\"event\": \"completed\", \"task\": \"coordinator\", \"checkpoint\": " + m.group(1));
                } else if ((m = FAILED.matcher(msg)).find() && e.getThrown() instanceof CheckpointException) {
                    // CheckpointFailureManager: every failed checkpoint with an id, and why
                    String reason = ((CheckpointException) e.getThrown()).getCheckpointFailureReason().name();
                    record("\"event\": \"aborted\", \"task\": \"coordinator\", \"checkpoint\": " + m.group(1)
                            + ", \"reason\": \"" + reason + "\"");
                }
            }
        };
        app.start();
        config.addAppender(app);
        for (String name : new String[] {"org.apache.flink.runtime.checkpoint.CheckpointCoordinator",
                "org.apache.flink.runtime.checkpoint.CheckpointFailureManager",
                "org.apache.flink.runtime.jobmaster.JobMaster"}) {  // the last: ExecutionGraphHandler's warnings
            LoggerConfig lc = new LoggerConfig(name, Level.INFO, false);
            lc.addAppender(app, Level.INFO, null);
            config.addLogger(name, lc);
        }
        for (String name : new String[] {"org.apache.flink.state.rocksdb.snapshot.RocksDBSnapshotStrategyBase",
                "org.apache.flink.state.rocksdb.snapshot.RocksIncrementalSnapshotStrategy"}) {  // their trace lines
            LoggerConfig lc = new LoggerConfig(name, Level.TRACE, false);
            lc.addAppender(app, Level.TRACE, null);
            config.addLogger(name, lc);
        }
        ctx.updateLoggers();
    }

    private static void configure(StreamExecutionEnvironment env, long interval, long timeout, String mode, int p) {
        env.enableCheckpointing(interval);
        env.getCheckpointConfig().setCheckpointTimeout(timeout);
        if (!mode.equals("aligned")) {
            env.getCheckpointConfig().enableUnalignedCheckpoints(true);
            if (mode.startsWith("timeout:")) {  // aligned first, unaligned once the alignment takes this long
                env.getCheckpointConfig().setAlignedCheckpointTimeout(
                        java.time.Duration.ofMillis(Long.parseLong(mode.substring("timeout:".length()))));
            }
        }
        env.setParallelism(p);
        env.disableOperatorChaining();
    }

    /** The retained checkpoint with the highest id under {@code dir} (its chk-N folder). */
    private static java.nio.file.Path latestCheckpoint(java.nio.file.Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.walk(dir)) {
            return s.filter(x -> x.getFileName().toString().equals("_metadata"))
                    .map(java.nio.file.Path::getParent)
                    .max(java.util.Comparator.comparingLong(x -> Long.parseLong(x.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new IllegalStateException("no retained checkpoint under " + dir));
        }
    }

    public static void main(String[] args) throws Exception {
        String path = args[0];
        int n = Integer.parseInt(args[1]);
        int p = Integer.parseInt(args[2]);
        long interval = Long.parseLong(args[3]);
        long throttle = Long.parseLong(args[4]);
        long timeout = Long.parseLong(args[6]);
        String mode = args.length > 7 ? args[7] : "aligned";
        String job = args.length > 8 ? args[8] : "forward";
        long sinkDelay = args.length > 9 ? Long.parseLong(args[9]) : 0;
        int failSubtask = -1;
        int failSplit = -1;
        int failOffset = -1;
        int slowSubtask = -1;
        long slowCheckpoint = -1;
        String[] f = args[5].split(":");
        if (f[0].equals("sink")) {  // sink:SUBTASK:OFFSET (its own split) or sink:SUBTASK:SPLIT:OFFSET
            failSubtask = Integer.parseInt(f[1]);
            failSplit = f.length > 3 ? Integer.parseInt(f[2]) : failSubtask;
            failOffset = Integer.parseInt(f[f.length - 1]);
        } else if (f[0].equals("slow") || f[0].equals("throw")) {  // slow:S:C, throw:S:C
            slowSubtask = Integer.parseInt(f[1]);
            slowCheckpoint = Long.parseLong(f[2]);
        }
        out = new PrintWriter(new OutputStreamWriter(new FileOutputStream(path), StandardCharsets.UTF_8));
        out.println("{\"format\": \"ckptcheck-run\", \"version\": 1, \"flink\": \"" + EnvironmentInformation.getVersion()
                + "\", \"job\": \"" + job + "\", \"checkpointing\": \"" + mode + "\", \"parallelism\": " + p
                + ", \"records_per_split\": " + n + ", \"checkpoint_interval_ms\": " + interval + ", \"throttle_ms\": "
                + throttle + ", \"checkpoint_timeout_ms\": " + timeout + ", \"faults\": \"" + args[5] + "\""
                + (job.equals("keyed-incremental") ? ", \"max_concurrent_checkpoints\": 2" : "") + "}");
        listenToCoordinator();
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, true);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, java.time.Duration.ofMillis(50));
        java.nio.file.Path retained = null;
        java.nio.file.Path incremental = null;
        if (job.equals("keyed-incremental")) {  // RocksDB with incremental checkpoints on files, every file a real one
            incremental = java.nio.file.Files.createTempDirectory("ckptcheck-run");
            conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, incremental.toUri().toString());
            conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.ZERO);
            Gate.armed = args[5].equals("late-confirmation");
        }
        boolean restart = job.equals("keyed-rescale") || job.equals("keyed-restart-aligned");
        if (restart) {  // the first job's checkpoints outlive its cancellation
            retained = java.nio.file.Files.createTempDirectory("ckptcheck-run");
            conf.setString("execution.checkpointing.dir", retained.toUri().toString());
            conf.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        configure(env, interval, timeout, mode, p);
        if (incremental != null) {
            env.getCheckpointConfig().setMaxConcurrentCheckpoints(2);
        }
        TwoPhaseSink sink = new TwoPhaseSink(failSubtask, failSplit, failOffset, slowSubtask, slowCheckpoint,
                f[0].equals("throw") ? -1 : 3 * timeout, sinkDelay);
        SplitSource source = new SplitSource(n, throttle);
        if (incremental != null) {
            sink.withKeyedState(Gate.armed);
            if (Gate.armed) {
                source.gated();
            }
        }
        DataStream<Tuple2<Integer, Integer>> records =
                env.addSource(source, "source", Types.TUPLE(Types.INT, Types.INT)).uid("source");
        if (job.equals("forward")) {
            records.forward().addSink(sink).name("sink");
        } else if (job.equals("sink-v2")) {  // source(P) -forward-> Sink V2 writer(P) -forward-> committer(P)
            records.forward().sinkTo(new V2(failSubtask, failOffset)).name("sink-v2");
        } else {  // keyed-to-one: source(P) -keyBy-> 2PC sink(1), every record its own key
            records.keyBy(r -> r.f0 * 1000 + r.f1, Types.INT).addSink(sink).name("sink").setParallelism(1).uid("sink");
        }
        JobClient client = env.executeAsync("recorded");
        if (retained != null) {
            // keyed-rescale: once a checkpoint completed, the user cancels the job and restarts it
            // from its retained checkpoint with the sink at parallelism 2 (keyed-restart-aligned: at
            // parallelism 1, with unaligned checkpoints off)
            long deadline = System.currentTimeMillis() + 60_000;
            while (COMPLETED_CHECKPOINTS.get() == 0 && !client.getJobStatus().get().isGloballyTerminalState()
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(2);
            }
            if (client.getJobStatus().get().isGloballyTerminalState()) {
                System.out.println("RESULT the first job ended before a checkpoint completed");
                System.exit(1);
            }
            client.cancel().get(60, TimeUnit.SECONDS);
            try {
                client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException cancelled) {
                // the cancellation
            }
            java.nio.file.Path restore = latestCheckpoint(retained);
            record("\"event\": \"rescale\", \"task\": \"coordinator\", \"checkpoint\": "
                    + restore.getFileName().toString().substring(4));
            phase = 2;
            Configuration again = new Configuration(conf);
            again.setString("execution.state-recovery.path", restore.toUri().toString());
            boolean aligned = job.equals("keyed-restart-aligned");
            StreamExecutionEnvironment env2 = StreamExecutionEnvironment.getExecutionEnvironment(again);
            configure(env2, interval, timeout, aligned ? "aligned" : mode, p);
            if (aligned) {
                env2.getCheckpointConfig().enableUnalignedCheckpoints(false);
            }
            TwoPhaseSink sink2 = new TwoPhaseSink(-1, -1, -1, -1, -1, 0, sinkDelay);
            env2.addSource(new SplitSource(n, throttle), "source", Types.TUPLE(Types.INT, Types.INT)).uid("source")
                    .keyBy(r -> r.f0 * 1000 + r.f1, Types.INT).addSink(sink2).name("sink").setParallelism(aligned ? 1 : 2)
                    .uid("sink");
            client = env2.executeAsync("recorded-rescaled");
        }
        client.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        record("\"event\": \"job-finished\", \"task\": \"coordinator\"");
        for (java.nio.file.Path own : new java.nio.file.Path[] {retained, incremental}) {  // this run's own checkpoints
            if (own != null) {
                try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.walk(own)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
                }
            }
        }
        out.close();
        System.out.println("RESULT finished");
        System.exit(0);
    }
}
