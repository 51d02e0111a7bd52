package ckptcheck.conform;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.VoidBlobWriter;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.NoOpCheckpointStatsTracker;
import org.apache.flink.runtime.checkpoint.StandaloneCheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.StandaloneCompletedCheckpointStore;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptorFactory;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraphBuilder;
import org.apache.flink.runtime.executiongraph.DefaultVertexAttemptNumberStore;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.NoOpExecutionDeploymentListener;
import org.apache.flink.runtime.io.network.partition.JobMasterPartitionTrackerImpl;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobGraphBuilder;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.tasks.AbstractInvokable;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.scheduler.SchedulerBase;
import org.apache.flink.runtime.scheduler.adaptivebatch.NonAdaptiveExecutionPlanSchedulingContext;
import org.apache.flink.runtime.scheduler.strategy.SchedulingExecutionVertex;
import org.apache.flink.runtime.scheduler.strategy.SchedulingPipelinedRegion;
import org.apache.flink.runtime.shuffle.NettyShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContextImpl;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Pipelined regions as Flink's scheduler has them: a {@code JobGraph} built from the job (one
 * {@code JobVertex} per vertex, one {@code connectNewDataSetAsInput} per edge, with its
 * distribution pattern and result partition type), a real {@code DefaultExecutionGraph} built
 * from it by {@code DefaultExecutionGraphBuilder.buildGraph}, and the regions of its
 * {@code DefaultExecutionTopology} ({@code getSchedulingTopology().getAllPipelinedRegions()}):
 * logical regions first, then the scheduling regions inside each.
 */
public final class Regions implements Server.Family {

    /** The invokable every vertex names; never run. */
    public static final class Noop extends AbstractInvokable {
        public Noop(Environment environment) {
            super(environment);
        }

        @Override
        public void invoke() {}
    }

    static ResultPartitionType type(String exchange) {
        switch (exchange) {
            case "PIPELINED":
                return ResultPartitionType.PIPELINED_BOUNDED;
            case "BLOCKING":
                return ResultPartitionType.BLOCKING;
            case "HYBRID":
                return ResultPartitionType.HYBRID_FULL;
            default:
                throw new IllegalArgumentException("exchange " + exchange);
        }
    }

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "regions");
        t.setDaemon(true);
        return t;
    });

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        if (!op.equals("scheduler-regions")) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        // a = [[parallelism, ...], [[src, dst, pattern, exchange, records], ...]]
        List<JobVertex> vertices = new ArrayList<>();
        int k = 0;
        for (JsonNode p : a.get(0)) {
            JobVertex v = new JobVertex("v" + k, new JobVertexID(k, 0L));
            v.setParallelism(p.asInt());
            v.setInvokableClass(Noop.class);
            vertices.add(v);
            k++;
        }
        int dataSet = 0;
        for (JsonNode e : a.get(1)) {
            vertices.get(e.get(1).asInt()).connectNewDataSetAsInput(
                    vertices.get(e.get(0).asInt()),
                    DistributionPattern.valueOf(e.get(2).asText()),
                    type(e.get(3).asText()),
                    new IntermediateDataSetID(new JobVertexID(dataSet++, 1L), 0),
                    false,
                    false);
        }
        JobGraph jobGraph = JobGraphBuilder.newStreamingJobGraphBuilder().addJobVertices(vertices).build();
        Configuration conf = new Configuration();
        NettyShuffleMaster shuffle = new NettyShuffleMaster(new ShuffleMasterContextImpl(conf, t -> {}));
        DefaultExecutionGraph graph = DefaultExecutionGraphBuilder.buildGraph(
                jobGraph, conf, executor, executor, Regions.class.getClassLoader(),
                new StandaloneCompletedCheckpointStore(1), new CheckpointsCleaner(), new StandaloneCheckpointIDCounter(),
                Duration.ofSeconds(10), VoidBlobWriter.getInstance(), org.slf4j.LoggerFactory.getLogger(Regions.class),
                shuffle, new JobMasterPartitionTrackerImpl(jobGraph.getJobID(), shuffle, id -> Optional.empty()),
                TaskDeploymentDescriptorFactory.PartitionLocationConstraint.CAN_BE_UNKNOWN,
                NoOpExecutionDeploymentListener.get(), (execution, previous, next) -> {}, 0L,
                new DefaultVertexAttemptNumberStore(), SchedulerBase.computeVertexParallelismStore(jobGraph),
                NoOpCheckpointStatsTracker.INSTANCE, false, new ExecutionJobVertex.Factory(),
                ResultPartitionType::isBlockingOrBlockingPersistentResultPartition, false,
                UnregisteredMetricGroups.createUnregisteredJobManagerJobMetricGroup(),
                NonAdaptiveExecutionPlanSchedulingContext.INSTANCE);
        List<List<List<Integer>>> out = new ArrayList<>();
        for (SchedulingPipelinedRegion region : graph.getSchedulingTopology().getAllPipelinedRegions()) {
            List<List<Integer>> r = new ArrayList<>();
            for (SchedulingExecutionVertex v : region.getVertices()) {
                r.add(List.of((int) v.getId().getJobVertexId().getLowerPart(), v.getId().getSubtaskIndex()));
            }
            r.sort(Comparator.<List<Integer>>comparingInt(x -> x.get(0)).thenComparingInt(x -> x.get(1)));
            out.add(r);
        }
        out.sort(Comparator.comparingInt((List<List<Integer>> r) -> r.get(0).get(0)).thenComparingInt(r -> r.get(0).get(1)));
        return out;
    }
}
