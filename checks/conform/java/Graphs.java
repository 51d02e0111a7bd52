package ckptcheck.conform;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.VoidBlobWriter;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.NoOpCheckpointStatsTracker;
import org.apache.flink.runtime.checkpoint.StandaloneCheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.StandaloneCompletedCheckpointStore;
import org.apache.flink.runtime.concurrent.ComponentMainThreadExecutor;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptorFactory.PartitionLocationConstraint;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraphBuilder;
import org.apache.flink.runtime.executiongraph.DefaultVertexAttemptNumberStore;
import org.apache.flink.runtime.executiongraph.Execution;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.NoOpExecutionDeploymentListener;
import org.apache.flink.runtime.executiongraph.TaskExecutionStateTransition;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.io.network.partition.JobMasterPartitionTracker;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobType;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.jobgraph.tasks.AbstractInvokable;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.scheduler.SchedulerBase;
import org.apache.flink.runtime.scheduler.adaptivebatch.NonAdaptiveExecutionPlanSchedulingContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.taskmanager.TaskExecutionState;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real {@link DefaultExecutionGraph} from a small streaming {@link JobGraph}, built with
 * production classes only, as Flink's test helper {@code TestingDefaultExecutionGraphBuilder}
 * does: {@link DefaultExecutionGraphBuilder#buildGraph} with a {@link
 * StandaloneCompletedCheckpointStore}, {@link StandaloneCheckpointIDCounter}, {@link
 * VoidBlobWriter}, {@link NoOpExecutionDeploymentListener}, {@link NoOpCheckpointStatsTracker},
 * {@link SchedulerBase#computeVertexParallelismStore(JobGraph)} and {@link
 * NonAdaptiveExecutionPlanSchedulingContext}; the shuffle master and the partition tracker,
 * which the graph only calls once tasks deploy or partitions are released, are no-op proxies
 * (their default methods run as written). The graph is started with {@link #MAIN}, a
 * main-thread executor that runs every task at once on the calling thread.
 *
 * <p>Vertex {@code k} is {@code JobVertex("v" + k, new JobVertexID(0, k))}: one operator, whose
 * generated {@link OperatorID} is {@code OperatorID.fromJobVertexID} of that id. Edges are
 * PIPELINED_BOUNDED results made with {@link JobVertex#connectNewDataSetAsInput}; a consumer's
 * input gates are its edges in the order given.
 */
final class Graphs {

    private Graphs() {}

    /** Runs what it is given at once; every "is this the main thread" check passes. */
    static final ComponentMainThreadExecutor MAIN = new ComponentMainThreadExecutor() {
        @Override public void assertRunningInMainThread() {}
        @Override public void execute(Runnable command) { command.run(); }
        @Override public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("no scheduling in conformance graphs");
        }
        @Override public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("no scheduling in conformance graphs");
        }
        @Override public ScheduledFuture<?> scheduleAtFixedRate(Runnable c, long d, long p, TimeUnit u) {
            throw new UnsupportedOperationException("no scheduling in conformance graphs");
        }
        @Override public ScheduledFuture<?> scheduleWithFixedDelay(Runnable c, long d, long p, TimeUnit u) {
            throw new UnsupportedOperationException("no scheduling in conformance graphs");
        }
    };

    /** The graph's future executor (only handed to it; nothing here schedules on it). */
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "conform-graphs");
        t.setDaemon(true);
        return t;
    });

    /** A job graph with its vertices (index = vertex number) and edges (index = edge number). */
    static final class Job {
        final JobGraph graph;
        final List<JobVertex> vertices = new ArrayList<>();
        final List<JobEdge> edges = new ArrayList<>();

        Job(JobGraph graph) {
            this.graph = graph;
        }

        int indexOf(JobVertexID id) {
            return (int) id.getUpperPart();
        }

        OperatorID operator(int vertex) {
            return vertices.get(vertex).getOperatorIDs().get(0).getGeneratedOperatorID();
        }
    }

    static JobVertexID vertexId(int k) {
        return new JobVertexID(0L, k);
    }

    /**
     * The job graph: vertex {@code k} with parallelism {@code parallelisms[k]} (and max
     * parallelism {@code maxParallelism} when positive), edges {@code [src, dst, pattern,
     * upstreamMapper?, downstreamMapper?]} where the mappers, when present, are {@link
     * SubtaskStateMapper} names set with {@link JobEdge#setUpstreamSubtaskStateMapper} and
     * {@link JobEdge#setDownstreamSubtaskStateMapper}.
     */
    static Job job(JsonNode parallelisms, JsonNode edges, int maxParallelism) {
        Job job = new Job(new JobGraph(new JobID(0L, 0L), "conform"));
        job.graph.setJobType(JobType.STREAMING);
        for (int k = 0; k < parallelisms.size(); k++) {
            JobVertex v = new JobVertex("v" + k, vertexId(k));
            v.setInvokableClass(AbstractInvokable.class);
            v.setParallelism(parallelisms.get(k).asInt());
            if (maxParallelism > 0) {
                v.setMaxParallelism(maxParallelism);
            }
            job.vertices.add(v);
        }
        int e = 0;
        for (JsonNode edge : edges) {
            JobVertex src = job.vertices.get(edge.get(0).asInt());
            JobVertex dst = job.vertices.get(edge.get(1).asInt());
            JobEdge jobEdge = dst.connectNewDataSetAsInput(
                    src,
                    DistributionPattern.valueOf(edge.get(2).asText()),
                    ResultPartitionType.PIPELINED_BOUNDED,
                    new IntermediateDataSetID(new JobVertexID(1L, e++), 0),
                    false,
                    false);
            if (edge.size() > 3) {
                jobEdge.setUpstreamSubtaskStateMapper(SubtaskStateMapper.valueOf(edge.get(3).asText()));
                jobEdge.setDownstreamSubtaskStateMapper(SubtaskStateMapper.valueOf(edge.get(4).asText()));
            }
            job.edges.add(jobEdge);
        }
        for (JobVertex v : job.vertices) {
            job.graph.addVertex(v);
        }
        return job;
    }

    /** {@link DefaultExecutionGraphBuilder#buildGraph}, then {@code start(MAIN)}. */
    static DefaultExecutionGraph build(JobGraph jobGraph) throws Exception {
        Configuration config = new Configuration();
        DefaultExecutionGraph graph = DefaultExecutionGraphBuilder.buildGraph(
                jobGraph,
                config,
                TIMER,
                Runnable::run,
                Graphs.class.getClassLoader(),
                new StandaloneCompletedCheckpointStore(1),
                new CheckpointsCleaner(),
                new StandaloneCheckpointIDCounter(),
                Duration.ofSeconds(10),
                VoidBlobWriter.getInstance(),
                LoggerFactory.getLogger(Graphs.class),
                noOp(ShuffleMaster.class),
                noOp(JobMasterPartitionTracker.class),
                PartitionLocationConstraint.fromJobType(jobGraph.getJobType()),
                NoOpExecutionDeploymentListener.get(),
                (execution, previousState, newState) -> {},
                System.currentTimeMillis(),
                new DefaultVertexAttemptNumberStore(),
                SchedulerBase.computeVertexParallelismStore(jobGraph),
                NoOpCheckpointStatsTracker.INSTANCE,
                false,
                new ExecutionJobVertex.Factory(),
                ResultPartitionType::isBlockingOrBlockingPersistentResultPartition,
                false,
                UnregisteredMetricGroups.createUnregisteredJobManagerJobMetricGroup(),
                NonAdaptiveExecutionPlanSchedulingContext.INSTANCE);
        graph.start(MAIN);
        return graph;
    }

    /**
     * Drives {@code execution} from CREATED to {@code target} (RUNNING or FINISHED) the way a
     * deployment does: {@link Execution#transitionState} to SCHEDULED and DEPLOYING (the
     * scheduler's and {@code Execution.deploy}'s steps, done without a slot), then the task
     * manager's reports through {@link DefaultExecutionGraph#updateState}: INITIALIZING ({@code
     * Execution.switchToInitializing}), RUNNING ({@code switchToRunning}) and FINISHED ({@code
     * markFinished}, which counts the job vertex finished once all its subtasks are).
     */
    static void drive(DefaultExecutionGraph graph, Execution execution, ExecutionState target) {
        execution.transitionState(ExecutionState.SCHEDULED);
        execution.transitionState(ExecutionState.DEPLOYING);
        report(graph, execution, ExecutionState.INITIALIZING);
        report(graph, execution, ExecutionState.RUNNING);
        if (target == ExecutionState.FINISHED) {
            report(graph, execution, ExecutionState.FINISHED);
        } else if (target != ExecutionState.RUNNING) {
            throw new IllegalArgumentException("state " + target);
        }
    }

    private static void report(DefaultExecutionGraph graph, Execution execution, ExecutionState state) {
        graph.updateState(new TaskExecutionStateTransition(new TaskExecutionState(execution.getAttemptId(), state)));
        if (execution.getState() != state) {
            throw new IllegalStateException(execution.getVertexWithAttempt() + " is " + execution.getState()
                    + " after reporting " + state);
        }
    }

    /** The value of a completed future, or what it failed with (unwrapped). */
    static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable t = e;
            while (t instanceof CompletionException && t.getCause() != null) {
                t = t.getCause();
            }
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw e;
        }
    }

    /** An implementation of {@code type} whose default methods run and others do nothing. */
    @SuppressWarnings("unchecked")
    static <T> T noOp(Class<T> type) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            switch (method.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "no-op " + type.getSimpleName();
                default:
                    break;
            }
            Class<?> r = method.getReturnType();
            if (r == boolean.class) {
                return false;
            } else if (r == int.class || r == long.class || r == short.class || r == byte.class) {
                return r == long.class ? (Object) 0L : (Object) 0;
            } else if (CompletableFuture.class.isAssignableFrom(r)) {
                return new CompletableFuture<>();
            } else if (r == java.util.Collection.class || r == java.util.List.class) {
                return new ArrayList<>();
            } else if (r == java.util.Optional.class) {
                return java.util.Optional.empty();
            }
            return null;
        };
        return (T) Proxy.newProxyInstance(Graphs.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
