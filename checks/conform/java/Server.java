package ckptcheck.conform;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The Flink side of {@code ckptcheck conform}: reads one JSON request a line on standard input,
 * {@code {"family": F, "op": O, "cases": [args, ...]}}, and answers each with one line,
 * {@code {"answers": [{"v": value} | {"x": "Exception: message"}, ...]}}, or
 * {@code {"missing": "..."}} when the Flink build lacks a class or method the family calls.
 * Each family is a class of this package, compiled on its own against the Flink jar, so a
 * family that does not compile against a build leaves the others running.
 */
public final class Server {

    /** One family of cases: the Flink calls it makes, by operation name. */
    public interface Family {
        Object answer(String op, JsonNode args) throws Exception;
    }

    public static void main(String[] argv) throws Exception {
        ObjectMapper json = new ObjectMapper();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        PrintStream answers = System.out;
        System.setOut(System.err); // anything Flink prints goes to standard error
        BufferedWriter out =
                new BufferedWriter(new OutputStreamWriter(answers, StandardCharsets.UTF_8), 1 << 16);
        Map<String, Family> families = new HashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            JsonNode request = json.readTree(line);
            String name = request.get("family").asText();
            String op = request.get("op").asText();
            ObjectNode response = json.createObjectNode();
            try {
                Family family = families.get(name);
                if (family == null) {
                    family = (Family) Class.forName("ckptcheck.conform." + name)
                            .getDeclaredConstructor().newInstance();
                    families.put(name, family);
                }
                ArrayNode list = json.createArrayNode();
                for (JsonNode args : request.get("cases")) {
                    ObjectNode answer = list.addObject();
                    try {
                        answer.set("v", json.valueToTree(family.answer(op, args)));
                    } catch (LinkageError e) {
                        throw e;
                    } catch (Throwable e) {
                        Throwable t = e;
                        while (t instanceof InvocationTargetException && t.getCause() != null) {
                            t = t.getCause();
                        }
                        if (t instanceof LinkageError) {
                            throw (LinkageError) t;
                        }
                        answer.put("x", t.getClass().getSimpleName() + ": " + t.getMessage());
                    }
                }
                response.set("answers", list);
            } catch (LinkageError | ReflectiveOperationException e) {
                response.removeAll();
                response.put("missing", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.write(json.writeValueAsString(response));
            out.write('\n');
            out.flush();
        }
    }
}
