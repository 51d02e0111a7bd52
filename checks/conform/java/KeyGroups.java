package ckptcheck.conform;

import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.util.MathUtils;

import java.util.Arrays;

/** {@code KeyGroupRangeAssignment}, {@code MathUtils.murmurHash} and Java's hash codes. */
public final class KeyGroups implements Server.Family {

    @Override
    public Object answer(String op, JsonNode a) {
        switch (op) {
            case "murmur_hash":
                return MathUtils.murmurHash(a.get(0).asInt());
            case "java_hash":
                return key(a.get(0)).hashCode();
            case "key_group_for_key_hash":
                return KeyGroupRangeAssignment.computeKeyGroupForKeyHash(a.get(0).asInt(), a.get(1).asInt());
            case "assign_to_key_group":
                return KeyGroupRangeAssignment.assignToKeyGroup(key(a.get(0)), a.get(1).asInt());
            case "assign_key_to_parallel_operator":
                return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                        key(a.get(0)), a.get(1).asInt(), a.get(2).asInt());
            case "key_group_range":
                KeyGroupRange r = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        a.get(0).asInt(), a.get(1).asInt(), a.get(2).asInt());
                return Arrays.asList(r.getStartKeyGroup(), r.getEndKeyGroup());
            case "operator_index_for_key_group":
                return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                        a.get(0).asInt(), a.get(1).asInt(), a.get(2).asInt());
            case "default_max_parallelism":
                return KeyGroupRangeAssignment.computeDefaultMaxParallelism(a.get(0).asInt());
            default:
                throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    /** A key as the model passes it: an Integer, a String, or {"long": n} for a Long. */
    static Object key(JsonNode k) {
        if (k.isTextual()) {
            return k.asText();
        }
        if (k.isObject()) {
            return Long.valueOf(k.get("long").asLong());
        }
        return Integer.valueOf(k.asInt());
    }
}
