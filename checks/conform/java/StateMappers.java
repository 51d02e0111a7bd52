package ckptcheck.conform;

import org.apache.flink.runtime.checkpoint.MappingBasedRepartitioner;
import org.apache.flink.runtime.checkpoint.RescaleMappings;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code SubtaskStateMapper} (every mapper), {@code RescaleMappings} and
 * {@code MappingBasedRepartitioner}: how channel state moves on a rescale.
 */
public final class StateMappers implements Server.Family {

    private static final Method SOURCES;

    static {
        try {
            SOURCES = RescaleMappings.class.getDeclaredMethod("getNumberOfSources");
            SOURCES.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new NoSuchMethodError("RescaleMappings.getNumberOfSources");
        }
    }

    @Override
    public Object answer(String op, JsonNode a) throws Exception {
        SubtaskStateMapper mapper = SubtaskStateMapper.valueOf(a.get(0).asText());
        switch (op) {
            case "old_subtasks":
                return ints(mapper.getOldSubtasks(a.get(1).asInt(), a.get(2).asInt(), a.get(3).asInt()));
            case "is_ambiguous":
                return mapper.isAmbiguous();
            case "rescale_mappings":
                {
                    int oldP = a.get(1).asInt();
                    int newP = a.get(2).asInt();
                    RescaleMappings m = mapper.getNewToOldSubtasksMapping(oldP, newP);
                    int sources = (Integer) SOURCES.invoke(m);
                    Map<String, Object> out = new HashMap<>();
                    out.put("mapping", rows(m, sources));
                    out.put("identity", m.isIdentity());
                    out.put("ambiguous", new ArrayList<>(new TreeSet<>(m.getAmbiguousTargets())));
                    RescaleMappings inv = m.invert();
                    out.put("inverted", rows(inv, (Integer) SOURCES.invoke(inv)));
                    return out;
                }
            case "repartition":
                {
                    int oldP = a.get(1).asInt();
                    int newP = a.get(2).asInt();
                    List<List<String>> old = new ArrayList<>();
                    for (JsonNode s : a.get(3)) {
                        List<String> handles = new ArrayList<>();
                        s.forEach(h -> handles.add(h.asText()));
                        old.add(handles);
                    }
                    return new MappingBasedRepartitioner<String>(mapper.getNewToOldSubtasksMapping(oldP, newP))
                            .repartitionState(old, oldP, newP);
                }
            default:
                throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    private static List<List<Integer>> rows(RescaleMappings m, int sources) {
        List<List<Integer>> rows = new ArrayList<>();
        for (int i = 0; i < sources; i++) {
            rows.add(ints(m.getMappedIndexes(i)));
        }
        return rows;
    }

    static List<Integer> ints(int[] xs) {
        List<Integer> out = new ArrayList<>(xs.length);
        for (int x : xs) {
            out.add(x);
        }
        return out;
    }
}
