package ckptcheck.conform;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The iteration order of a {@code java.util.HashMap<String, ?>} after put or computeIfAbsent. */
public final class HashMapOrder implements Server.Family {

    @Override
    public Object answer(String op, JsonNode a) {
        Map<String, Integer> map = new HashMap<>();
        for (JsonNode n : a.get(0)) {
            if (op.equals("put")) {
                map.put(n.asText(), 0);
            } else if (op.equals("compute_if_absent")) {
                map.computeIfAbsent(n.asText(), k -> 0);
            } else {
                throw new IllegalArgumentException("unknown operation " + op);
            }
        }
        return new ArrayList<>(map.keySet());
    }
}
