package ckptcheck.conform;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.StateAssignmentOperation;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Keyed state on a restore: {@code StateAssignmentOperation.createKeyGroupPartitions} and
 * {@code reAssignSubKeyedStates} (the old subtask's handles as they are at unchanged parallelism,
 * else every old handle intersected with the new subtask's key-group range).
 */
public final class KeyedState implements Server.Family {

    private static final Method REASSIGN;

    static {
        try {
            REASSIGN = StateAssignmentOperation.class.getDeclaredMethod(
                    "reAssignSubKeyedStates", OperatorState.class, List.class, int.class, int.class, int.class);
            REASSIGN.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new NoSuchMethodError("StateAssignmentOperation.reAssignSubKeyedStates");
        }
    }

    private final StateAssignmentOperation operation =
            new StateAssignmentOperation(0L, Collections.emptySet(), Collections.emptyMap(), false, false);

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        int maxP = a.get(0).asInt();
        switch (op) {
            case "key_group_partitions":
                {
                    List<List<Integer>> out = new ArrayList<>();
                    for (KeyGroupRange r : StateAssignmentOperation.createKeyGroupPartitions(maxP, a.get(1).asInt())) {
                        out.add(Arrays.asList(r.getStartKeyGroup(), r.getEndKeyGroup()));
                    }
                    return out;
                }
            case "reassign":
                {
                    int oldP = a.get(1).asInt();
                    int newP = a.get(2).asInt();
                    List<KeyGroupRange> oldRanges = StateAssignmentOperation.createKeyGroupPartitions(maxP, oldP);
                    OperatorState state = new OperatorState("op", "op", new OperatorID(), oldP, maxP);
                    for (int i = 0; i < oldP; i++) {
                        KeyedStateHandle h = new KeyGroupsStateHandle(
                                new KeyGroupRangeOffsets(oldRanges.get(i)),
                                new ByteStreamStateHandle(Integer.toString(i), new byte[0]));
                        state.putState(i, OperatorSubtaskState.builder().setManagedKeyedState(h).build());
                    }
                    List<KeyGroupRange> newRanges = StateAssignmentOperation.createKeyGroupPartitions(maxP, newP);
                    List<List<List<Integer>>> out = new ArrayList<>();
                    for (int j = 0; j < newP; j++) {
                        @SuppressWarnings("unchecked")
                        Tuple2<List<KeyedStateHandle>, List<KeyedStateHandle>> got =
                                (Tuple2<List<KeyedStateHandle>, List<KeyedStateHandle>>)
                                        REASSIGN.invoke(operation, state, newRanges, j, newP, oldP);
                        List<List<Integer>> handles = new ArrayList<>();
                        for (KeyedStateHandle h : got.f0) {
                            KeyGroupsStateHandle k = (KeyGroupsStateHandle) h;
                            String name = ((ByteStreamStateHandle) k.getDelegateStateHandle()).getHandleName();
                            KeyGroupRange r = k.getKeyGroupRange();
                            handles.add(Arrays.asList(Integer.parseInt(name), r.getStartKeyGroup(), r.getEndKeyGroup()));
                        }
                        out.add(handles);
                    }
                    return out;
                }
            default:
                throw new IllegalArgumentException("unknown operation " + op);
        }
    }
}
