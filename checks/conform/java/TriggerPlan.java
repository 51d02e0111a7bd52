package ckptcheck.conform;

import org.apache.flink.runtime.checkpoint.CheckpointMetrics;
import org.apache.flink.runtime.checkpoint.CheckpointPlan;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.DefaultCheckpointPlanCalculator;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.PendingCheckpoint;
import org.apache.flink.runtime.checkpoint.TaskStateSnapshot;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.Execution;
import org.apache.flink.runtime.executiongraph.ExecutionGraphCheckpointPlanCalculatorContext;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Which tasks a checkpoint triggers and waits for once some have finished, and when it is
 * refused on completion: {@link DefaultCheckpointPlanCalculator#calculateCheckpointPlan} and
 * {@code DefaultCheckpointPlan.fulfillFinishedTaskStatus}, on a real execution graph
 * ({@link Graphs}).
 *
 * <p>Both ops take {@code [parallelisms, edges, states, afterFinish, ...]}: vertices in
 * topological order, edges {@code [src, dst, "POINTWISE" | "ALL_TO_ALL"]}, each subtask's state
 * {@code "RUNNING" | "FINISHED"} (reached through {@link Graphs#drive}) and
 * execution.checkpointing.checkpoints-after-tasks-finish. The calculator is constructed as
 * {@code DefaultExecutionGraph.createCheckpointPlanCalculator} does: with {@link
 * ExecutionGraphCheckpointPlanCalculatorContext} (main executor: the graph's; {@code
 * hasFinishedTasks()}: {@code getNumFinishedVertices() > 0}, i.e. some job vertex has finished
 * entirely) and {@code getVerticesTopologically()}.
 *
 * <ul>
 *   <li>{@code plan}: answers {@code {"trigger", "wait", "finished"}}, each a sorted list of
 *       {@code [vertex, subtask]} from {@link CheckpointPlan#getTasksToTrigger}, {@link
 *       CheckpointPlan#getTasksToWaitFor} and {@link CheckpointPlan#getFinishedTasks}.
 *   <li>{@code fulfill}: args also {@code union} (per vertex: its operator state is UNION
 *       list state, else SPLIT_DISTRIBUTE) and {@code endedBeforeSnapshot} (per vertex, per
 *       subtask: the RUNNING subtask acknowledges with {@link TaskStateSnapshot#isTaskFinished}
 *       true, its operators having finished). Every task to wait for acknowledges, through a
 *       real {@link PendingCheckpoint#acknowledgeTask} (which puts the {@link
 *       OperatorSubtaskState} into the operator states and calls {@code
 *       CheckpointPlan.reportTaskHasFinishedOperators} for a finished-operators snapshot), then
 *       {@code CheckpointPlan.fulfillFinishedTaskStatus(pending.getOperatorStates())} is called
 *       as {@code PendingCheckpoint.finalizeCheckpoint} does. Answers {@code "ok"}, or
 *       Flink's exception. When no task is left to wait for (PendingCheckpoint refuses such a
 *       plan) the operator states are an empty map.
 * </ul>
 */
public final class TriggerPlan implements Server.Family {

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        switch (op) {
            case "plan":
                {
                    Setup s = new Setup(a);
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("trigger", s.tasks(s.plan.getTasksToTrigger()));
                    out.put("wait", s.tasks(s.plan.getTasksToWaitFor()));
                    out.put("finished", s.tasks(s.plan.getFinishedTasks()));
                    return out;
                }
            case "fulfill":
                {
                    Setup s = new Setup(a);
                    JsonNode union = a.get(4);
                    JsonNode ended = a.get(5);
                    Map<OperatorID, OperatorState> states;
                    if (s.plan.getTasksToWaitFor().isEmpty()) {
                        states = new HashMap<>();
                    } else {
                        PendingCheckpoint pending = new PendingCheckpoint(
                                s.graph.getJobID(),
                                1L,
                                0L,
                                s.plan,
                                Collections.emptyList(),
                                Collections.emptyList(),
                                CheckpointProperties.forCheckpoint(CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION),
                                new CompletableFuture<>(),
                                null,
                                new CompletableFuture<>());
                        for (Execution task : s.plan.getTasksToWaitFor()) {
                            int v = s.job.indexOf(task.getVertex().getJobvertexId());
                            int i = task.getParallelSubtaskIndex();
                            TaskStateSnapshot snapshot = new TaskStateSnapshot(1, ended.get(v).get(i).asBoolean());
                            snapshot.putSubtaskStateByOperatorID(
                                    s.job.operator(v),
                                    OperatorSubtaskState.builder()
                                            .setManagedOperatorState(listState(v, i, union.get(v).asBoolean()))
                                            .build());
                            PendingCheckpoint.TaskAcknowledgeResult r =
                                    pending.acknowledgeTask(task.getAttemptId(), snapshot, new CheckpointMetrics());
                            if (r != PendingCheckpoint.TaskAcknowledgeResult.SUCCESS) {
                                throw new IllegalStateException("acknowledgement of " + v + "." + i + ": " + r);
                            }
                        }
                        states = pending.getOperatorStates();
                    }
                    s.plan.fulfillFinishedTaskStatus(states);
                    return "ok";
                }
            default:
                throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    /** One list state "s" of one element, in UNION or SPLIT_DISTRIBUTE mode. */
    private static OperatorStateHandle listState(int vertex, int subtask, boolean union) {
        Map<String, OperatorStateHandle.StateMetaInfo> offsets = new HashMap<>();
        offsets.put("s", new OperatorStateHandle.StateMetaInfo(
                new long[] {0L}, union ? OperatorStateHandle.Mode.UNION : OperatorStateHandle.Mode.SPLIT_DISTRIBUTE));
        return new OperatorStreamStateHandle(offsets, new ByteStreamStateHandle(vertex + "." + subtask, new byte[] {1}));
    }

    /** The graph with its executions in the given states, and the plan Flink computes. */
    private static final class Setup {
        final Graphs.Job job;
        final DefaultExecutionGraph graph;
        final CheckpointPlan plan;

        Setup(JsonNode a) throws Exception {
            job = Graphs.job(a.get(0), a.get(1), 0);
            graph = Graphs.build(job.graph);
            JsonNode states = a.get(2);
            // RUNNING first, so that no vertex finishes while others are still CREATED
            for (ExecutionState pass : new ExecutionState[] {ExecutionState.RUNNING, ExecutionState.FINISHED}) {
                for (ExecutionJobVertex ejv : graph.getVerticesTopologically()) {
                    int v = job.indexOf(ejv.getJobVertexId());
                    for (int i = 0; i < ejv.getParallelism(); i++) {
                        ExecutionState want = ExecutionState.valueOf(states.get(v).get(i).asText());
                        if (want == pass) {
                            Graphs.drive(graph, ejv.getTaskVertices()[i].getCurrentExecutionAttempt(), want);
                        }
                    }
                }
            }
            DefaultCheckpointPlanCalculator calculator = new DefaultCheckpointPlanCalculator(
                    graph.getJobID(),
                    new ExecutionGraphCheckpointPlanCalculatorContext(graph),
                    graph.getVerticesTopologically(),
                    a.get(3).asBoolean());
            plan = Graphs.await(calculator.calculateCheckpointPlan());
        }

        List<List<Integer>> tasks(List<Execution> executions) {
            List<List<Integer>> out = new ArrayList<>();
            for (Execution e : executions) {
                out.add(Arrays.asList(job.indexOf(e.getVertex().getJobvertexId()), e.getParallelSubtaskIndex()));
            }
            out.sort(Comparator.<List<Integer>, Integer>comparing(t -> t.get(0)).thenComparing(t -> t.get(1)));
            return out;
        }
    }
}
