package ckptcheck.conform;

import org.apache.flink.runtime.checkpoint.RoundRobinOperatorStateRepartitioner;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Operator state on a restore: {@code RoundRobinOperatorStateRepartitioner.repartitionState}
 * (even-split, union and broadcast state). A subtask's handle is
 * {@code [handle name, [[state name, mode, [offsets]], ...]]}; its map keeps the given order.
 */
public final class OperatorStates implements Server.Family {

    @Override
    public Object answer(String op, JsonNode a) {
        if (!op.equals("repartition")) {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        int oldP = a.get(0).asInt();
        int newP = a.get(1).asInt();
        List<List<OperatorStateHandle>> old = new ArrayList<>();
        for (JsonNode subtask : a.get(2)) {
            List<OperatorStateHandle> handles = new ArrayList<>();
            for (JsonNode h : subtask) {
                Map<String, OperatorStateHandle.StateMetaInfo> states = new LinkedHashMap<>();
                for (JsonNode s : h.get(1)) {
                    long[] offsets = new long[s.get(2).size()];
                    for (int i = 0; i < offsets.length; i++) {
                        offsets[i] = s.get(2).get(i).asLong();
                    }
                    states.put(s.get(0).asText(), new OperatorStateHandle.StateMetaInfo(
                            offsets, OperatorStateHandle.Mode.valueOf(s.get(1).asText())));
                }
                handles.add(new OperatorStreamStateHandle(
                        states, new ByteStreamStateHandle(h.get(0).asText(), new byte[0])));
            }
            old.add(handles);
        }
        List<List<Object>> out = new ArrayList<>();
        for (List<OperatorStateHandle> subtask :
                RoundRobinOperatorStateRepartitioner.INSTANCE.repartitionState(old, oldP, newP)) {
            List<Object> handles = new ArrayList<>();
            for (OperatorStateHandle h : subtask) {
                List<Object> states = new ArrayList<>();
                for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e :
                        h.getStateNameToPartitionOffsets().entrySet()) {
                    List<Long> offsets = new ArrayList<>();
                    for (long o : e.getValue().getOffsets()) {
                        offsets.add(o);
                    }
                    states.add(Arrays.asList(e.getKey(), e.getValue().getDistributionMode().name(), offsets));
                }
                String name = ((ByteStreamStateHandle) h.getDelegateStateHandle()).getHandleName();
                handles.add(Arrays.asList(name, states));
            }
            out.add(handles);
        }
        return out;
    }
}
