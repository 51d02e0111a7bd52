import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.flink.api.common.functions.MapPartitionFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A streaming job with a BLOCKING edge, on a local MiniCluster: fromSequence(1, 100) ->
 * fullWindowPartition().mapPartition(sum) (outputs only after its end of input, so its output
 * edge is BLOCKING) -> rebalance() -> map -> sink, at parallelism 2.
 *
 * <p>Arguments: "cp" (checkpointing every 200 ms) or "none", then "after-finish" or "no-after-finish"
 * (execution.checkpointing.checkpoints-after-tasks-finish), then the seconds to wait. Prints one line,
 * "RESULT finished" or "RESULT still RUNNING after N s" (the job is then cancelled), and exits 0.
 */
public class BlockingOutputJob {
    public static void main(String[] args) throws Exception {
        boolean checkpointing = args[0].equals("cp");
        boolean afterFinish = args[1].equals("after-finish");
        int seconds = Integer.parseInt(args[2]);
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, afterFinish);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        if (checkpointing) {
            env.enableCheckpointing(200);
        }
        env.setParallelism(2);
        env.fromSequence(1, 100)
                .fullWindowPartition()
                .mapPartition((MapPartitionFunction<Long, Long>) (values, out) -> {
                    long sum = 0;
                    for (Long v : values) {
                        sum += v;
                    }
                    out.collect(sum);
                })
                .returns(Long.class)
                .rebalance()
                .map(x -> x)
                .returns(Long.class)
                .sinkTo(new DiscardingSink<>());
        JobClient client = env.executeAsync("blocking-output");
        try {
            client.getJobExecutionResult().get(seconds, TimeUnit.SECONDS);
            System.out.println("RESULT finished");
        } catch (TimeoutException e) {
            System.out.println("RESULT still " + client.getJobStatus().get() + " after " + seconds + " s");
            client.cancel().get();
        }
        System.exit(0);
    }
}
