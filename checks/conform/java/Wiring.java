package ckptcheck.conform;

import org.apache.flink.runtime.executiongraph.ExecutionVertexInputInfo;
import org.apache.flink.runtime.executiongraph.IndexRange;
import org.apache.flink.runtime.executiongraph.JobVertexInputInfo;
import org.apache.flink.runtime.executiongraph.VertexInputInfoComputationUtils;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Pointwise and all-to-all wiring of a static graph:
 * {@code VertexInputInfoComputationUtils.computeVertexInputInfoForPointwise} and
 * {@code computeVertexInputInfoForAllToAll}. A partition has as many subpartitions as consumers
 * (what {@code EdgeManagerBuildUtil} connects in a static graph): the pointwise answer is
 * computed once to count each partition's consumers, then again with those counts.
 */
public final class Wiring implements Server.Family {

    private static final Method POINTWISE;
    private static final Method ALL_TO_ALL;

    static {
        try {
            POINTWISE = VertexInputInfoComputationUtils.class.getDeclaredMethod(
                    "computeVertexInputInfoForPointwise", int.class, int.class, Function.class, boolean.class);
            POINTWISE.setAccessible(true);
            ALL_TO_ALL = VertexInputInfoComputationUtils.class.getDeclaredMethod(
                    "computeVertexInputInfoForAllToAll", int.class, int.class, Function.class,
                    boolean.class, boolean.class, boolean.class);
            ALL_TO_ALL.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new NoSuchMethodError("VertexInputInfoComputationUtils: " + e.getMessage());
        }
    }

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        int s = a.get(0).asInt();
        int t = a.get(1).asInt();
        JobVertexInputInfo info;
        if (op.equals("pointwise")) {
            Function<Integer, Integer> one = p -> 1;
            JobVertexInputInfo first = (JobVertexInputInfo) POINTWISE.invoke(null, s, t, one, false);
            int[] consumers = new int[s];
            for (ExecutionVertexInputInfo e : first.getExecutionVertexInputInfos()) {
                for (IndexRange r : e.getConsumedSubpartitionGroups().keySet()) {
                    for (int p = r.getStartIndex(); p <= r.getEndIndex(); p++) {
                        consumers[p]++;
                    }
                }
            }
            Function<Integer, Integer> count = p -> consumers[p];
            info = (JobVertexInputInfo) POINTWISE.invoke(null, s, t, count, false);
        } else if (op.equals("all_to_all")) {
            Function<Integer, Integer> count = p -> t;
            info = (JobVertexInputInfo) ALL_TO_ALL.invoke(null, s, t, count, false, false, false);
        } else {
            throw new IllegalArgumentException("unknown operation " + op);
        }
        List<List<List<Integer>>> out = new ArrayList<>();
        for (int i = 0; i < t; i++) {
            out.add(new ArrayList<>());
        }
        for (ExecutionVertexInputInfo e : info.getExecutionVertexInputInfos()) {
            for (Map.Entry<IndexRange, IndexRange> g : e.getConsumedSubpartitionGroups().entrySet()) {
                out.get(e.getSubtaskIndex()).add(Arrays.asList(
                        g.getKey().getStartIndex(), g.getKey().getEndIndex(),
                        g.getValue().getStartIndex(), g.getValue().getEndIndex()));
            }
        }
        return out;
    }
}
