package ckptcheck.conform;

import org.apache.flink.runtime.checkpoint.InflightDataRescalingDescriptor;
import org.apache.flink.runtime.checkpoint.InflightDataRescalingDescriptor.InflightDataGateOrPartitionRescalingDescriptor;
import org.apache.flink.runtime.checkpoint.JobManagerTaskRestore;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.RescaleMappings;
import org.apache.flink.runtime.checkpoint.StateAssignmentOperation;
import org.apache.flink.runtime.checkpoint.StateObjectCollection;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.AbstractChannelStateHandle;
import org.apache.flink.runtime.state.InputChannelStateHandle;
import org.apache.flink.runtime.state.InputStateHandle;
import org.apache.flink.runtime.state.OutputStateHandle;
import org.apache.flink.runtime.state.ResultSubpartitionStateHandle;
import org.apache.flink.runtime.state.StateObject;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Channel (in-flight data) state on a restore at new parallelisms: {@link
 * StateAssignmentOperation#assignStates} on a real execution graph ({@link Graphs}), read back
 * from each new subtask's {@link
 * org.apache.flink.runtime.executiongraph.Execution#getTaskRestore()}.
 *
 * <p>Op {@code assign}, args {@code [oldParallelisms, newParallelisms, edges, inputState,
 * outputState, recoverOutputOnDownstream?]}: one operator per vertex, vertices in topological
 * order, max parallelism 128; edges {@code [src, dst, pattern, upstreamMapper,
 * downstreamMapper]} ({@code SubtaskStateMapper} names, set on the {@code JobEdge});
 * {@code inputState[v][s]} / {@code outputState[v][s]}: old subtask {@code s} of vertex {@code
 * v} persisted one {@link InputChannelStateHandle} per input channel of each of its gates / one
 * {@link ResultSubpartitionStateHandle} per subpartition of each of its partitions, as many as
 * the OLD graph (built at the old parallelisms) gives it ({@code
 * ExecutionVertex.getConsumedPartitionGroup(gate).size()}, {@code
 * IntermediateResultPartition.getNumberOfSubpartitions()}). Each handle's delegate is a {@link
 * ByteStreamStateHandle} named {@code "v.s.gate.channel"} (input) or {@code
 * "v.s.partition.subpartition"} (output); its info is {@code InputChannelInfo(gate, channel)} /
 * {@code ResultSubpartitionInfo(partition, subpartition)}. As in a real checkpoint, a subtask
 * with no channel state acknowledged no {@link OperatorSubtaskState} (its operator's {@link
 * OperatorState} just lacks that index). {@code recoverOutputOnDownstream} (default false) is
 * the constructor's last flag (execution.checkpointing.unaligned.recover-output-on-downstream).
 *
 * <p>Answer: per vertex, per new subtask, {@code {"restored": bool, "input": [names],
 * "output": [names], "inDescriptor": d, "outDescriptor": d}} (plus {@code "upstreamOutput"}
 * when recoverOutputOnDownstream is set), names sorted; a subtask Flink gave no {@link
 * JobManagerTaskRestore} has {@code restored: false}, empty lists and null descriptors. A
 * descriptor ({@link InflightDataRescalingDescriptor}) is {@code "NO_RESCALE"} or a list per
 * gate (input) / partition (output) of {@code "NO_STATE"} or {@code {"oldSubtasks": [...],
 * "mapping": rows of RescaleMappings.getMappedIndexes(old) for each old index, or
 * "SYMMETRIC_IDENTITY", "ambiguous": [...], "type": "IDENTITY" | "RESCALING"}}.
 */
public final class ChannelState implements Server.Family {

    private static final int MAX_PARALLELISM = 128;

    private static final Field GATES;
    private static final Field AMBIGUOUS;
    private static final Field TYPE;
    private static final Method SOURCES;

    static {
        try {
            GATES = InflightDataRescalingDescriptor.class.getDeclaredField("gateOrPartitionDescriptors");
            AMBIGUOUS = InflightDataGateOrPartitionRescalingDescriptor.class.getDeclaredField("ambiguousSubtaskIndexes");
            TYPE = InflightDataGateOrPartitionRescalingDescriptor.class.getDeclaredField("mappingType");
            SOURCES = RescaleMappings.class.getDeclaredMethod("getNumberOfSources");
            GATES.setAccessible(true);
            AMBIGUOUS.setAccessible(true);
            TYPE.setAccessible(true);
            SOURCES.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new NoSuchFieldError("InflightDataRescalingDescriptor internals: " + e.getMessage());
        }
    }

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        if (!op.equals("assign")) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        JsonNode oldP = a.get(0);
        JsonNode newP = a.get(1);
        JsonNode edges = a.get(2);
        JsonNode inputState = a.get(3);
        JsonNode outputState = a.get(4);
        boolean recoverOutputOnDownstream = a.size() > 5 && a.get(5).asBoolean();

        // the old topology, only to count each old subtask's channels and subpartitions
        Graphs.Job oldJob = Graphs.job(oldP, edges, MAX_PARALLELISM);
        DefaultExecutionGraph oldGraph = Graphs.build(oldJob.graph);
        Graphs.Job job = Graphs.job(newP, edges, MAX_PARALLELISM);
        DefaultExecutionGraph graph = Graphs.build(job.graph);

        Map<OperatorID, OperatorState> states = new HashMap<>();
        for (int v = 0; v < oldP.size(); v++) {
            ExecutionJobVertex old = oldGraph.getJobVertex(Graphs.vertexId(v));
            OperatorID operator = job.operator(v);
            OperatorState state = new OperatorState("v" + v, "v" + v, operator, oldP.get(v).asInt(), MAX_PARALLELISM);
            for (int s = 0; s < oldP.get(v).asInt(); s++) {
                ExecutionVertex task = old.getTaskVertices()[s];
                List<InputStateHandle> in = new ArrayList<>();
                List<OutputStateHandle> out = new ArrayList<>();
                if (inputState.get(v).get(s).asBoolean()) {
                    for (int g = 0; g < old.getInputs().size(); g++) {
                        int channels = task.getConsumedPartitionGroup(g).size();
                        for (int c = 0; c < channels; c++) {
                            in.add(new InputChannelStateHandle(
                                    s, new InputChannelInfo(g, c), delegate(v, s, g, c), Collections.singletonList(0L), 1L));
                        }
                    }
                }
                if (outputState.get(v).get(s).asBoolean()) {
                    for (int p = 0; p < old.getProducedDataSets().length; p++) {
                        int subpartitions = old.getProducedDataSets()[p].getPartitions()[s].getNumberOfSubpartitions();
                        for (int q = 0; q < subpartitions; q++) {
                            out.add(new ResultSubpartitionStateHandle(
                                    s, new ResultSubpartitionInfo(p, q), delegate(v, s, p, q), Collections.singletonList(0L), 1L));
                        }
                    }
                }
                if (!in.isEmpty() || !out.isEmpty()) {
                    state.putState(s, OperatorSubtaskState.builder()
                            .setInputChannelState(new StateObjectCollection<>(in))
                            .setResultSubpartitionState(new StateObjectCollection<>(out))
                            .build());
                }
            }
            states.put(operator, state);
        }

        Set<ExecutionJobVertex> tasks = new HashSet<>(graph.getAllVertices().values());
        new StateAssignmentOperation(1L, tasks, states, false, recoverOutputOnDownstream).assignStates();

        List<List<Map<String, Object>>> answer = new ArrayList<>();
        for (int v = 0; v < newP.size(); v++) {
            List<Map<String, Object>> subtasks = new ArrayList<>();
            ExecutionJobVertex ejv = graph.getJobVertex(Graphs.vertexId(v));
            for (ExecutionVertex task : ejv.getTaskVertices()) {
                JobManagerTaskRestore restore = task.getCurrentExecutionAttempt().getTaskRestore();
                OperatorSubtaskState got = restore == null
                        ? null
                        : restore.getTaskStateSnapshot().getSubtaskStateByOperatorID(job.operator(v));
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("restored", restore != null);
                out.put("input", got == null ? Collections.emptyList() : names(got.getInputChannelState()));
                out.put("output", got == null ? Collections.emptyList() : names(got.getResultSubpartitionState()));
                if (recoverOutputOnDownstream) {
                    out.put("upstreamOutput", got == null ? Collections.emptyList() : names(got.getUpstreamOutputBufferState()));
                }
                out.put("inDescriptor", got == null ? null : descriptor(got.getInputRescalingDescriptor()));
                out.put("outDescriptor", got == null ? null : descriptor(got.getOutputRescalingDescriptor()));
                subtasks.add(out);
            }
            answer.add(subtasks);
        }
        return answer;
    }

    private static StreamStateHandle delegate(int v, int s, int i, int j) {
        return new ByteStreamStateHandle(v + "." + s + "." + i + "." + j, new byte[] {1});
    }

    private static List<String> names(Iterable<? extends StateObject> handles) {
        List<String> out = new ArrayList<>();
        for (StateObject h : handles) {
            if (h instanceof AbstractChannelStateHandle
                    && ((AbstractChannelStateHandle<?>) h).getDelegate() instanceof ByteStreamStateHandle) {
                out.add(((ByteStreamStateHandle) ((AbstractChannelStateHandle<?>) h).getDelegate()).getHandleName());
            } else {
                out.add(h.getClass().getSimpleName() + ":" + h);
            }
        }
        Collections.sort(out);
        return out;
    }

    private static Object descriptor(InflightDataRescalingDescriptor d) throws ReflectiveOperationException {
        if (d == InflightDataRescalingDescriptor.NO_RESCALE) {
            return "NO_RESCALE";
        }
        List<Object> gates = new ArrayList<>();
        for (InflightDataGateOrPartitionRescalingDescriptor g : (InflightDataGateOrPartitionRescalingDescriptor[]) GATES.get(d)) {
            if (g == InflightDataGateOrPartitionRescalingDescriptor.NO_STATE) {
                gates.add("NO_STATE");
                continue;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            List<Integer> old = new ArrayList<>();
            for (int i : g.getOldSubtaskInstances()) {
                old.add(i);
            }
            out.put("oldSubtasks", old);
            out.put("mapping", mapping(g.getRescaleMappings()));
            @SuppressWarnings("unchecked")
            List<Integer> ambiguous = new ArrayList<>((Set<Integer>) AMBIGUOUS.get(g));
            Collections.sort(ambiguous);
            out.put("ambiguous", ambiguous);
            out.put("type", String.valueOf(TYPE.get(g)));
            gates.add(out);
        }
        return gates;
    }

    private static Object mapping(RescaleMappings m) throws ReflectiveOperationException {
        int sources = (Integer) SOURCES.invoke(m);
        if (sources == Integer.MAX_VALUE) {
            return "SYMMETRIC_IDENTITY";
        }
        List<List<Integer>> rows = new ArrayList<>();
        for (int i = 0; i < sources; i++) {
            List<Integer> row = new ArrayList<>();
            for (int t : m.getMappedIndexes(i)) {
                row.add(t);
            }
            rows.add(row);
        }
        return rows;
    }
}
