"""A streaming job with a BLOCKING edge (FLINK-34371's output-after-end-of-input operators): the
consumer region is deployed once its producers finished, the checkpoint scheduler stays stopped
while a subtask with a BLOCKING output runs, and a HYBRID edge is refused as Flink refuses it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from ckptcheck.checks.run.api import check
from ckptcheck.model.actions import Deliver, FailTask, TriggerCheckpoint
from ckptcheck.model.protocol import FlinkModel
from ckptcheck.model.topology import Exchange
from ckptcheck.model.world import FINISHED
from ckptcheck.specs.catalog import BLOCKING_FIX, blocking_scope
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.spec import Spec
from test_instant_acks import reachable


def _with_exchange(sc, exchange: Exchange):
    job = sc.job
    edges = tuple(dataclasses.replace(e, exchange=exchange) if e.exchange is Exchange.BLOCKING else e for e in job.edges)
    return sc.with_(job=dataclasses.replace(job, edges=edges))


def test_the_consumer_of_a_blocking_edge_waits_for_every_producer_and_no_checkpoint_is_triggered_meanwhile():
    spec = Spec(BLOCKING_FIX, blocking_scope(failures=1))
    topo = spec.model.topo
    partition, sink = topo.tasks_of[1][0], topo.tasks_of[2][0]
    into_sink = next(c.id for c in topo.channels if c.consumer == sink)
    worlds = reachable(spec.model)
    read = triggered_early = 0
    for w in worlds:
        acts = spec.actions(w)
        producer_done = w.tasks[partition].status == FINISHED
        if Deliver(into_sink) in acts:
            assert producer_done, "the sink read the BLOCKING result before its producer finished"
            read += 1
        if not producer_done:
            assert FailTask(sink) not in acts, "a subtask that is not deployed cannot fail"
            triggered_early += any(type(a) is TriggerCheckpoint for a in acts)
    assert read and not triggered_early
    # the same job with a PIPELINED edge triggers while the partition runs, and reads at once
    piped = Spec(BLOCKING_FIX, _with_exchange(blocking_scope(), Exchange.PIPELINED))
    early = [w for w in reachable(piped.model) if w.tasks[partition].status != FINISHED]
    assert any(any(type(a) is TriggerCheckpoint for a in piped.actions(w)) for w in early)
    assert any(Deliver(into_sink) in piped.actions(w) for w in early)


def test_flink_as_released_hangs_and_the_fix_holds_and_reads_the_blocking_result():
    hang = check(BASELINE, blocking_scope(failures=1))
    assert [v.property for v in hang.violated] == ["bounded-job-completes"]
    assert "waiting for a checkpoint after its end of input" in hang.violated[0].reason
    fixed = check(BLOCKING_FIX, blocking_scope(failures=1))
    assert fixed.outcome == "holds"
    read = {r.outcome: next(v.status for v in r.verdicts if v.property == "a-blocking-result-is-read") for r in (hang, fixed)}
    assert read == {"violated": "not reached", "holds": "hit"}  # Flink's producers never finish: nothing reads the result


def test_a_hybrid_edge_is_refused_as_flink_refuses_it_in_a_streaming_job(tmp_path):
    with pytest.raises(ValueError, match="hybrid shuffle mode only supports batch job"):
        FlinkModel(BASELINE, _with_exchange(blocking_scope(), Exchange.HYBRID))
    job = tmp_path / "hybrid.toml"
    job.write_text('[[vertex]]\nname = "source"\nparallelism = 1\nrole = "source"\n\n'
                   '[[vertex]]\nname = "sink"\nparallelism = 1\nrole = "sink"\n\n'
                   '[[edge]]\nsource = "source"\ntarget = "sink"\nexchange = "HYBRID"\n')
    r = subprocess.run([sys.executable, "-m", "ckptcheck.checks.cli.main", "check", "--design", "flink-baseline", "--job", str(job)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "HYBRID" in lines[0] and "Traceback" not in r.stderr
