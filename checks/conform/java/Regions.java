package ckptcheck.conform;

import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.failover.SchedulingPipelinedRegionComputeUtil;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.IntermediateResultPartitionID;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.scheduler.strategy.ConsumedPartitionGroup;
import org.apache.flink.runtime.scheduler.strategy.ConsumerVertexGroup;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.scheduler.strategy.ResultPartitionState;
import org.apache.flink.runtime.scheduler.strategy.SchedulingExecutionVertex;
import org.apache.flink.runtime.scheduler.strategy.SchedulingResultPartition;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pipelined regions: {@code SchedulingPipelinedRegionComputeUtil.computePipelinedRegions} on an
 * execution graph given as subtasks (in topological order), result partitions with their type
 * and consumers, and each subtask's consumed partition groups (one per input edge).
 */
public final class Regions implements Server.Family {

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

    static final class Task implements SchedulingExecutionVertex {
        final int index;
        final ExecutionVertexID id;
        final List<Partition> produced = new ArrayList<>();
        final List<Partition> consumed = new ArrayList<>();
        final List<ConsumedPartitionGroup> groups = new ArrayList<>();

        Task(int index, ExecutionVertexID id) {
            this.index = index;
            this.id = id;
        }

        @Override public ExecutionVertexID getId() { return id; }
        @Override public Iterable<Partition> getConsumedResults() { return consumed; }
        @Override public Iterable<Partition> getProducedResults() { return produced; }
        @Override public ExecutionState getState() { return ExecutionState.CREATED; }
        @Override public List<ConsumedPartitionGroup> getConsumedPartitionGroups() { return groups; }
    }

    static final class Partition implements SchedulingResultPartition {
        final IntermediateResultPartitionID id;
        final ResultPartitionType type;
        final Task producer;
        final List<ConsumerVertexGroup> consumers = new ArrayList<>();
        final List<ConsumedPartitionGroup> groups = new ArrayList<>();

        Partition(IntermediateResultPartitionID id, ResultPartitionType type, Task producer) {
            this.id = id;
            this.type = type;
            this.producer = producer;
        }

        @Override public IntermediateResultPartitionID getId() { return id; }
        @Override public ResultPartitionType getResultType() { return type; }
        @Override public Task getProducer() { return producer; }
        @Override public IntermediateDataSetID getResultId() { return id.getIntermediateDataSetID(); }
        @Override public ResultPartitionState getState() { return ResultPartitionState.CREATED; }
        @Override public List<ConsumerVertexGroup> getConsumerVertexGroups() { return consumers; }
        @Override public List<ConsumedPartitionGroup> getConsumedPartitionGroups() { return groups; }
    }

    @Override
    public Object answer(String op, JsonNode a) {
        if (!op.equals("regions")) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        // a = [tasks: [[vertex, subtask], ...], partitions: [[edge, producer, exchange, [consumers]], ...],
        //      groups: [[task, [partition, ...]], ...]]
        List<Task> tasks = new ArrayList<>();
        Map<Integer, JobVertexID> vertices = new HashMap<>();
        for (JsonNode t : a.get(0)) {
            JobVertexID v = vertices.computeIfAbsent(t.get(0).asInt(), k -> new JobVertexID(0L, k));
            tasks.add(new Task(tasks.size(), new ExecutionVertexID(v, t.get(1).asInt())));
        }
        List<Partition> partitions = new ArrayList<>();
        Map<Integer, IntermediateDataSetID> results = new HashMap<>();
        for (JsonNode p : a.get(1)) {
            IntermediateDataSetID result = results.computeIfAbsent(p.get(0).asInt(), k -> new IntermediateDataSetID(new JobVertexID(1L, k), k));
            Task producer = tasks.get(p.get(1).asInt());
            ResultPartitionType type = type(p.get(2).asText());
            Partition partition = new Partition(
                    new IntermediateResultPartitionID(result, producer.id.getSubtaskIndex()), type, producer);
            List<ExecutionVertexID> consumers = new ArrayList<>();
            for (JsonNode c : p.get(3)) {
                consumers.add(tasks.get(c.asInt()).id);
                tasks.get(c.asInt()).consumed.add(partition);
            }
            partition.consumers.add(ConsumerVertexGroup.fromMultipleVertices(consumers, type));
            producer.produced.add(partition);
            partitions.add(partition);
        }
        for (JsonNode g : a.get(2)) {
            Task task = tasks.get(g.get(0).asInt());
            List<IntermediateResultPartitionID> ids = new ArrayList<>();
            ResultPartitionType type = null;
            for (JsonNode p : g.get(1)) {
                ids.add(partitions.get(p.asInt()).id);
                type = partitions.get(p.asInt()).type;
            }
            ConsumedPartitionGroup group = ConsumedPartitionGroup.fromMultiplePartitions(1, ids, type);
            task.groups.add(group);
            for (JsonNode p : g.get(1)) {
                partitions.get(p.asInt()).groups.add(group);
            }
        }
        Map<ExecutionVertexID, Task> byId = new HashMap<>();
        tasks.forEach(t -> byId.put(t.id, t));
        Map<IntermediateResultPartitionID, Partition> partitionById = new HashMap<>();
        partitions.forEach(p -> partitionById.put(p.id, p));
        Set<Set<SchedulingExecutionVertex>> regions =
                SchedulingPipelinedRegionComputeUtil.computePipelinedRegions(tasks, byId::get, partitionById::get);
        List<List<Integer>> out = new ArrayList<>();
        for (Set<SchedulingExecutionVertex> region : regions) {
            List<Integer> r = new ArrayList<>();
            for (SchedulingExecutionVertex v : region) {
                r.add(((Task) v).index);
            }
            Collections.sort(r);
            out.add(r);
        }
        out.sort(Comparator.comparing(r -> r.get(0)));
        return out;
    }
}
