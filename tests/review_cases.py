"""The cases of the usability review's table of bad input that
tests/checks/cli/test_review_table.py runs: each case's command, the input files it needs (built in the
case's folder) and what the promise says it must give."""

from __future__ import annotations

import copy
import io
import json
from typing import NamedTuple

import pytest

SMALL = "--checkpoints 1 --failures 0 --declines 0"
SMALLER, NO_CHECKPOINT = f"--job forward-2x2 {SMALL}", "--checkpoints 0 --failures 0 --declines 0"


# ---- the input files, built in each case's folder ----

FOLDER, READ_ONLY = "folder", "read-only folder"
BLOB = bytes(range(256)) * 4  # byte 128 is 0x80: not UTF-8


class Unreadable(NamedTuple):
    """A file of mode 000 (read by a user without root's file access)."""
    content: object


def design(body: str) -> str:
    return 'based_on = "flink-baseline"\n' + body


KEEP_TWO = design("num_retained = 2\ntolerable_failed_checkpoints = 1\n")
BAD_KNOB = design('num_retained = "two"\n')


def V(name, par=2, role=None, **extra) -> str:
    """A [[vertex]] table (without parallelism if ``par`` is None); ``extra`` values are TOML text."""
    fields = {"name": f'"{name}"', "parallelism": par, "role": f'"{role or name}"', **extra}
    return "[[vertex]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items() if v is not None) + "\n"


def E(source, target, **extra) -> str:
    """An [[edge]] table; ``extra`` values are TOML text."""
    fields = {"source": f'"{source}"', "target": f'"{target}"', **extra}
    return "[[edge]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items()) + "\n"


TPC = {"two_phase_commit": "true"}
SINK = V("sink", **TPC)


def job(*tables: str) -> dict:
    return {"job.toml": "".join(tables)}


def trace(*edits):
    """The good trace (commit-at-pre-commit's committed-output-covered counterexample) with
    ``edits`` made to its JSON document."""
    def build(good: dict) -> str:
        doc = copy.deepcopy(good)
        for edit in edits:
            edit(doc)
        return json.dumps(doc, indent=2) + "\n"
    return build


def at(path: tuple, value) -> callable:
    def edit(doc):
        for k in path[:-1]:
            doc = doc[k]
        doc[path[-1]] = value
    return edit


def without(path: tuple) -> callable:
    def edit(doc):
        for k in path[:-1]:
            doc = doc[k]
        del doc[path[-1]]
    return edit


GOOD = trace()
CUT = lambda good: GOOD(good)[: len(GOOD(good)) // 2]  # noqa: E731  (a trace cut in half)
COMMA = lambda good: GOOD(good).rstrip()[:-1].rstrip() + ",\n}\n"  # noqa: E731  (a trailing comma)
NOT_ENABLED = lambda d: d["actions"].insert(0, {"type": "Deliver", "channel": "source[1]->sink[1]"})  # noqa: E731


def relabelled(d):
    """commit-at-pre-commit's trace said to be flink-baseline's (its knobs too)."""
    d["design"]["name"] = "flink-baseline"
    d["design"]["knobs"]["sink_commit"] = "notify"


def old_components(d):
    """Components named as an older ckptcheck wrote them (top-level package ``model``, the module
    named after the design field, as ``model.partitioner.StreamPartitioner``)."""
    d["design"]["components"] = {k: f"model.{k}.{v.rpartition('.')[2]}" for k, v in d["design"]["components"].items()}


def a_cycle(d):
    d["scope"]["job"]["edges"].append(dict(d["scope"]["job"]["edges"][0], source="sink", target="source"))


def short(d):
    """The actions cut after step 3 (the violation recorded at step 5)."""
    d["actions"] = d["actions"][:3]


def no_job_object(d):
    d["scope"]["job_name"] = "no-such-job"
    del d["scope"]["job"]


def huge_design(good) -> str:
    """60 MB of comments, then a bad knob."""
    return 'based_on = "flink-baseline"\n' + ("# " + "x" * 98 + "\n") * 600_000 + 'num_retained = "two"\n'


def parquet_without_trace(good) -> bytes:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    sink = io.BytesIO()
    pq.write_table(pa.table({"source": ["a"], "steps": [3], "verdict": ["holds"], "step": [0]}), sink)
    return sink.getvalue()


VARIANT_STORE = {"variant_store.py": '''
from ckptcheck.model.store import CompletedCheckpointStore
from ckptcheck.specs.designs import BASELINE


class EagerCleaner(CompletedCheckpointStore):
    """Delete a checkpoint's files once it is subsumed, or retained."""

    def discard(self, subsumed, retained, pending):
        return subsumed + retained


EAGER_CLEANER = BASELINE.with_(name="eager-cleaner", store=EagerCleaner)
'''}
M, NOTES, RO, GOODF = "mine.toml", {"notes.txt": "mine\n"}, {"ro/": READ_ONLY}, {"good.trace.json": GOOD}


class Case(NamedTuple):
    id: str
    cmd: str  # as typed after ``ckptcheck`` in the case's folder (SMALL: a small scope)
    files: dict  # relative path -> str, bytes, builder(good trace) -> str | bytes, FOLDER, READ_ONLY or Unreadable
    expect: tuple  # words of the one stderr line (refusals), of stdout (the others)


def C(id, cmd, files=None, *expect) -> Case:
    return Case(id, cmd, files or {}, expect)


def params(items, marks=None):
    """pytest parameters named by the case ids (items: cases, or rows holding one as ``case``)."""
    ids = [getattr(x, "case", x).id for x in items]
    return [pytest.param(x, id=i, marks=(marks or {}).get(i, ())) for x, i in zip(items, ids)]


# ---- refusals: exit 2, one line on stderr, nothing written, at once ----

REFUSED = [
    # design TOML files (7.1 #2-#25, 7.2 N31-N40)
    C("r002", "check --design mine.toml", {M: design('regional_checkpoints = "yes"\n')},
      "mine.toml", "regional_checkpoints", "expected true or false", "'yes'"),
    C("r003", "check --design mine.toml", {M: design("num_retained = 2.0\n")}, "mine.toml", "num_retained", "expected an integer", "2.0"),
    C("r005", "check --design mine.toml", {M: design("tolerable_failed_checkpoints = -1\n")},
      "mine.toml", "tolerable_failed_checkpoints", "expected an integer >= 0", "-1"),
    C("r012", "check --design mine.toml", {M: "based_on = 3\nnum_retained = 2\n"}, "mine.toml", "based_on", "expected a preset", "got 3"),
    C("r013", "check --design mine.toml", {M: design('name = ""\nnum_retained = 2\n')}, "mine.toml", "name", "expected a non-empty string"),
    C("r015", "check --design mine.toml", {M: design("description = 5\nnum_retained = 2\n")},
      "mine.toml", "description", "expected a string", "got 5"),
    C("r016", "check --design mine.toml", {M: design("[num_retained]\nvalue = 2\n")},
      "mine.toml", "num_retained", "expected an integer", "got a table {value = 2}"),
    C("r021", "check --design keep-two.toml", {}, "keep-two.toml", "design", "no such design or file", "a TOML file"),
    C("r024", "check --design huge.toml", {"huge.toml": huge_design}, "huge.toml", "num_retained", "expected an integer", "'two'"),
    C("r025", "check --design mine.json", {"mine.json": '{"based_on": "flink-baseline", "num_retained": 2}\n'},
      "mine.json", "toml", "not valid TOML", "line 1, column 1"),
    C("N31", f"check --design mine.toml {SMALL}", {M: design('checkpoint_mode = "Aligned"\n')},
      "mine.toml", "checkpoint_mode", "expected one of 'aligned', 'unaligned', 'aligned-timeout'", "'Aligned'"),
    # filed under the knob the refusal names first (the usability review's ask)
    C("N33", f"check --design mine.toml {SMALL}", {M: design('recovery = "null-state"\n')},
      "mine.toml: recovery: recovery 'null-state' restarts the whole job", "failover_strategy 'full'"),
    C("N34", f"check --design mine.toml {SMALL}", {M: design("regional_checkpoints = 1\n")},
      "mine.toml", "regional_checkpoints", "expected true or false", "got 1"),
    C("N36", f"check --design mine.toml {SMALL}", {M: design("max_failed_region_percent = 100.5\n")},
      "mine.toml", "max_failed_region_percent", "expected an integer", "100.5"),
    C("N37", f"check --design mine.toml {SMALL}", {M: design("num_retained = 2\nnum_retained = 3\n")},
      "mine.toml", "toml", "not valid TOML", "line 3"),
    C("N39", f"check --design mine.toml {SMALL}", {M: design("regional_checkpoint = true\n")},
      "mine.toml", "regional_checkpoint", "unknown knob", "did you mean 'regional_checkpoints'"),
    C("N40", f"check --design mine.toml {SMALL}", {M: design('store = "variant_store.EagerCleaner"\n')},
      "mine.toml", "store", "unknown knob"),
    # job TOML files (7.1 #28-#53, 7.2 N16-N30); the field paths come in two spellings (vertex[1].x,
    # vertices.sink.x) that the review asks to unify: the field's own name is asserted
    C("r028", "check --job loop.toml", {"loop.toml": V("source") + SINK + E("source", "sink") + E("sink", "sink")},
      "loop.toml", "edges", "the job graph has a cycle: sink -> sink"),
    C("r029", "check --job zero.toml", {"zero.toml": V("source", 0) + SINK + E("source", "sink")},
      "zero.toml", "parallelism", "integer >= 1", "got 0"),
    C("r030", "check --job neg.toml", {"neg.toml": V("source") + V("sink", -2, **TPC) + E("source", "sink")},
      "neg.toml", "parallelism", "integer >= 1", "got -2"),
    C("r031", "check --job str.toml", {"str.toml": V("source") + V("sink", '"2"', **TPC) + E("source", "sink")},
      "str.toml", "parallelism", "integer >= 1", "got '2'"),
    C("r034", "check --job maxp0.toml", {"maxp0.toml": V("source") + V("sink", max_parallelism=0, **TPC) + E("source", "sink")},
      "maxp0.toml", "max_parallelism", "integer >= 1", "got 0"),
    C("r035", "check --job edge.toml", {"edge.toml": V("source") + SINK + E("source", "snk")}, "edge.toml", "edge", "unknown vertex 'snk'"),
    C("r036", "check --job dup.toml", {"dup.toml": V("source") + V("source") + SINK + E("source", "sink")},
      "dup.toml", "source", "vertex name is used twice"),
    C("r037", "check --job dupedge.toml", {"dupedge.toml": V("source") + SINK + E("source", "sink") + E("source", "sink")},
      "dupedge.toml", "a second edge source -> sink", "side outputs"),
    C("r039", "check --job pat2.toml", {"pat2.toml": V("source") + SINK + E("source", "sink", pattern='"all_to_all"')},
      "pat2.toml", "pattern", "expected one of 'ALL_TO_ALL', 'POINTWISE'", "'all_to_all'"),
    C("r040", "check --job ex.toml", {"ex.toml": V("source") + SINK + E("source", "sink", exchange='"BATCH"')},
      "ex.toml", "exchange", "expected one of 'PIPELINED', 'BLOCKING', 'HYBRID'", "'BATCH'"),
    C("r041", "check --job role.toml", {"role.toml": V("source") + V("sink", role="transformer") + E("source", "sink")},
      "role.toml", "role", "expected one of 'source', 'operator', 'sink'", "'transformer'"),
    C("r042", "check --job nosrc.toml", {"nosrc.toml": V("source", role="operator") + SINK + E("source", "sink")},
      "nosrc.toml", "role", "only a source may have no inputs"),
    C("r044", "check --job src2pc.toml", {"src2pc.toml": V("source", **TPC) + SINK + E("source", "sink")},
      "src2pc.toml", "two_phase_commit", "only sinks commit transactions"),
    C("r045", "check --job typo.toml", {"typo.toml": V("source") + V("sink", None, paralelism=2, **TPC) + E("source", "sink")},
      "typo.toml", "paralelism", "unknown field", "parallelism"),
    C("r046", "check --job st.toml", {"st.toml": V("source") + V("sink", state='["keyed", "bogus"]', **TPC) + E("source", "sink")},
      "st.toml", "state", "expected one of 'keyed', 'list', 'union', 'epoch'", "'bogus'"),
    C("r047", "check --job st2.toml", {"st2.toml": V("source") + V("sink", state='"keyed"', **TPC) + E("source", "sink")},
      "st2.toml", "state", 'expected a list such as ["keyed"]'),
    C("r048", "check --job empty.toml", {"empty.toml": ""}, "empty.toml", "vertex", "expected at least one [[vertex]] table"),
    C("r049", "check --job e2.toml", {"e2.toml": V("source") + SINK + '[[edge]]\nsource = "source"\n'}, "e2.toml", "target", "missing"),
    C("r050", "check --job keyed-2by2", {}, "keyed-2by2", "job", "no such job or file", "did you mean 'keyed-2x2'"),
    C("r052", "check --job jobs/", {"jobs/": FOLDER}, "jobs/", "job", "is a folder", "expected a preset"),
    C("r053", "check --job keep-two.toml", {"keep-two.toml": KEEP_TWO},
      "keep-two.toml", "based_on", "unknown field", "expected [[vertex]] and [[edge]]"),
    C("N16", f"check --job job.toml {SMALL}", job(V("source"), SINK, E("source", "sink", partitioner='"shuffle"')),
      "job.toml", "partitioner", "expected 'hash', 'rebalance' or 'custom'", "'shuffle'"),
    C("N17", f"check --job job.toml {SMALL}", job(V("source"), SINK, E("source", "sink", records='"prime"')),
      "job.toml", "records", "expected 'all', 'even' or 'odd'", "'prime'"),
    C("N18", f"check --job job.toml {SMALL}", job(V("source"), V("", role="sink", **TPC), E("source", "")),
      "job.toml", "vertices", "every vertex needs a non-empty name"),
    C("N20", f"check --job job.toml {SMALL}", job(V("source", 300), SINK, E("source", "sink")),
      "job.toml", "vertex", "302 subtasks and 600 channels", "at most 256 subtasks and 4096 channels"),
    C("N21", f"check --job job.toml {SMALL}", job(V("source", 2.5), SINK, E("source", "sink")),
      "job.toml", "parallelism", "integer >= 1", "got 2.5"),
    C("N22", f"check --job job.toml {SMALL}", job(V("source"), SINK, '[[edge]]\ntarget = "sink"\n'), "job.toml", "source", "missing"),
    C("N23", f"check --job job.toml {SMALL}", job(V("source"), SINK, V("sink2", role="sink", **TPC),
                                                  E("source", "sink"), E("sink", "sink2")),
      "job.toml", "sink", "a sink cannot have outputs"),
    C("N24", f"check --job job.toml {SMALL}", job(V("source"), V("sink", max_parallelism=2**63 - 1, **TPC), E("source", "sink")),
      "job.toml", "max_parallelism", "9223372036854775807", "exceeds Flink's upper bound 32768"),
    C("N27", f"check --job job.toml {SMALL}", job('[job]\nname = "mine"\n\n', V("source"), SINK, E("source", "sink")),
      "job.toml", "job", "unknown field", "expected [[vertex]] and [[edge]]"),
    C("N28", f"check --job job.toml {SMALL}", job('[vertex]\nname = "source"\nparallelism = 2\nrole = "source"\n'),
      "job.toml", "vertex", "expected at least one [[vertex]] table"),
    C("N29", f"check --job job.toml {SMALL}", job(V("source", role="Source"), SINK, E("source", "sink")),
      "job.toml", "role", "expected one of 'source', 'operator', 'sink'", "'Source'"),
    C("N30", f"check --job job.toml {SMALL}", job(V("source"), SINK, V("lonely", role="sink", **TPC), E("source", "sink")),
      "job.toml", "lonely", "only a source may have no inputs"),
    # trace files given to replay, report and itf (7.1 #54-#83, 7.2 N43-N54)
    C("r054", "replay cut.trace.json", {"cut.trace.json": CUT}, "cut.trace.json", "json", "not valid JSON"),
    C("r055", "replay empty.trace.json", {"empty.trace.json": ""}, "empty.trace.json", "json", "not valid JSON", "line 1: Expecting value"),
    C("r056", "replay bad.trace.json", {"bad.trace.json": COMMA},
      "bad.trace.json", "json", "not valid JSON", "Expecting property name enclosed in double quotes"),
    C("r057", "replay fmt.trace.json", {"fmt.trace.json": trace(at(("format",), "tlc-trace"))},
      "fmt.trace.json", "format", "expected 'ckptcheck-trace'", "'tlc-trace'"),
    C("r062", "replay nofield.trace.json", {"nofield.trace.json": trace(without(("actions", 0, "task")))},
      "nofield.trace.json", "actions[0].task", "missing for EmitRecord"),
    C("r064", "replay ghost2.trace.json",
      {"ghost2.trace.json": trace(at(("design", "name"), "flip999-imaginary"),
                                  at(("design", "components", "store"), "variant_store.EagerCleaner"))},
      "ghost2.trace.json", "design.components.store", "the trace ran variant_store.EagerCleaner",
      "'flip999-imaginary' (not a preset or catalog entry) uses CompletedCheckpointStore"),
    C("r065", "replay knob.trace.json", {"knob.trace.json": trace(at(("design", "knobs", "num_retained"), "1"))},
      "knob.trace.json", "design.knobs", "num_retained", "expected an integer", "got '1'"),
    C("r066", "replay scope.trace.json", {"scope.trace.json": trace(at(("scope", "records_per_split"), -1))},
      "scope.trace.json", "scope.records_per_split", "expected a non-negative integer", "-1"),
    C("r067", "replay cyc.trace.json", {"cyc.trace.json": trace(a_cycle)},
      "cyc.trace.json", "scope.job", "cycle", "source -> sink -> source"),
    C("r071", "replay arr.trace.json", {"arr.trace.json": lambda good: "[" + GOOD(good) + "]\n"},
      "arr.trace.json", "trace", "expected a JSON object"),
    C("r072", "replay as.trace.json", {"as.trace.json": trace(at(("actions",), "EmitRecord"))},
      "as.trace.json", "actions", "expected a list of actions", "'EmitRecord'"),
    C("r073", "replay nosuch.trace.json", {}, "nosuch.trace.json", "file", "no such trace file"),
    C("r074", "replay results/", {"results/": FOLDER}, "results/", "file", "cannot be read"),
    C("r075", "replay blob.trace.json", {"blob.trace.json": BLOB}, "blob.trace.json", "file", "cannot be read as UTF-8 text"),
    C("r078", "report cut.trace.json --out rep", {"cut.trace.json": CUT}, "cut.trace.json", "json", "not valid JSON"),
    C("r079", "report good.trace.json cut.trace.json --out rep", {**GOODF, "cut.trace.json": CUT},
      "cut.trace.json", "json", "not valid JSON"),
    C("r081", "report ne.trace.json --out rep", {"ne.trace.json": trace(NOT_ENABLED)},
      "ne.trace.json", "actions[0]", "Deliver(source[1]->sink[1]) is not enabled at step 1"),
    C("r082", "itf cut.trace.json", {"cut.trace.json": CUT}, "cut.trace.json", "json", "not valid JSON"),
    C("r083", "itf v2.trace.json", {"v2.trace.json": trace(at(("version",), 2))}, "v2.trace.json", "version", "expected 1", "got 2"),
    C("N43", "replay inj.trace.json", {"inj.trace.json": trace(at(("design", "components", "store"), "os.system"))},
      "inj.trace.json", "design.components.store", "the trace ran os.system",
      "'commit-at-pre-commit' uses CompletedCheckpointStore"),
    C("N44", "replay vs.trace.json", {"vs.trace.json": trace(at(("version",), "1"))}, "vs.trace.json", "version", "expected 1", "got '1'"),
    C("N45", "replay neg.trace.json", {"neg.trace.json": trace(at(("actions", 2, "checkpoint"), -1))},
      "neg.trace.json", "actions[2].checkpoint", "expected a non-negative integer", "-1"),
    C("N46", "replay big.trace.json", {"big.trace.json": trace(at(("actions", 2, "checkpoint"), 10**30))},
      "big.trace.json", "actions[2]", f"TriggerCheckpoint({10**30}) is not enabled"),
    C("N47", "replay nan.trace.json", {"nan.trace.json": trace(at(("scope", "records_per_split"), float("nan")))},
      "nan.trace.json", "scope.records_per_split", "expected a non-negative integer", "nan"),
    C("N49", "replay jn.trace.json", {"jn.trace.json": trace(no_job_object)}, "jn.trace.json", "scope.job", "expected a job graph object"),
    C("N50", "replay --design variant_store:EAGER_CLEANER good.trace.json", {**GOODF, **VARIANT_STORE},
      "good.trace.json", "design.components.store", "variant_store.EagerCleaner", "replay a Python variant with --design module:NAME"),
    C("N51", "report --out rep", {}, "the following arguments are required: traces", "ckptcheck report --help"),
    C("N53", "replay short.trace.json", {"short.trace.json": trace(short)},
      "short.trace.json", "violation.step", "expected a step from 0 to 3 (the trace's length)", "got 5"),
    C("N54", "replay old.trace.json", {"old.trace.json": trace(old_components)},
      "old.trace.json", "design.components.partitioner", "model.partitioner.StreamPartitioner"),
    # options (7.1 #87-#111, 7.2 N55-N80)
    C("r087", "check --records abc", {}, "--records", "expected an integer from 0 to 1,000,000", "'abc'"),
    C("r091", "check --max-seconds 0", {}, "--max-seconds", "expected a positive number of seconds", "'0'"),
    C("r093", "check --engine tlc", {}, "--engine", "invalid choice: 'tlc'", "'explore'"),
    C("r094", "check --engine stateful --profile fast", {}, "--profile", "invalid choice: 'fast'", "'ci'"),
    C("r103", "check --design-file keep-two.toml", {"keep-two.toml": KEEP_TWO},
      "unrecognized arguments: --design-file keep-two.toml", "ckptcheck --help"),
    C("r104", "", {}, "the following arguments are required: command"),
    C("r105", "verify", {}, "invalid choice: 'verify'", "'check'"),
    C("r106", "check --design ''", {}, "'': design: is empty", "expected a preset or catalog entry"),
    C("r109", "check --engine stateful --seed -1", {}, "--seed", "expected an integer from 0 to 1,000,000", "'-1'"),
    C("r111", "spark generate --walks 0 --out sp", {}, "--walks", "expected an integer from 1 to 1,000,000", "'0'"),
    C("N55", "check --max-seconds -5", {}, "--max-seconds", "expected a positive number of seconds", "'-5'"),
    C("N58", "check --workers 0", {}, "--workers", "expected a number of processes from 1 to 64", "'0'"),
    C("N60", "check --max-states -1", {}, "--max-states", "expected an integer from 0 to 10,000,000,000", "'-1'"),
    C("N61", "check --rescale sink=0", {}, "--rescale[0]", "parallelism must be in 1..128", "got 0"),
    C("N62", "check --rescale nosuch=2", {}, "--rescale[0]", "no vertex named 'nosuch'"),
    C("N63", "check --rescale sink", {}, "--rescale", "expected VERTEX=PARALLELISM", "'sink'"),
    C("N67", "findings flip600-pr --out notes.txt --max-seconds 5", NOTES, "--out", "notes.txt", "exists and is not a folder"),
    C("N71", "check --checkpoints -1", {}, "--checkpoints", "expected an integer from 0 to 1,000,000", "'-1'"),
    C("N80", "spark generate --steps 0 --walks 10 --out sp", {}, "--steps", "expected an integer from 1 to 1,000,000", "'0'"),
    # designs named on the command line, compare (7.2 N01-N15) and spark generate (7.1 #116, 7.2 N86)
    C("N01", f"compare flink-baseline {SMALL}", {}, "compare", "designs", "expected at least two designs"),
    C("N02", f"compare flink-baseline flink-basline {SMALL}", {},
      "flink-basline", "design", "no such design or file", "did you mean 'flink-baseline'"),
    C("N05", f"compare flink-baseline raises:X {SMALL}", {"raises.py": 'raise RuntimeError("boom at import")\n'},
      "raises:X", "module", "raised RuntimeError: boom at import"),
    C("N06", f"compare flink-baseline notdesign:X {SMALL}", {"notdesign.py": "X = 42\n"}, "notdesign:X", "expected a Design", "got int"),
    C("N07", f"check --design syntaxerr:X {SMALL}", {"syntaxerr.py": "def (:\n    X = 1\n"}, "syntaxerr:X", "module", "SyntaxError"),
    C("N08", f"check --design variant_store: {SMALL}", VARIANT_STORE, "variant_store:", "design", "no such design or file"),
    C("N09", f"check --design :X {SMALL}", {}, ":X", "design", "no such design or file"),
    C("N10", f"check --design ../evil:X {SMALL}",
      {"../evil.py": 'from ckptcheck.specs.designs import BASELINE\nX = BASELINE.with_(name="evil")\n'},
      "../evil:X", "design", "no such design or file"),
    C("N11", f"check --design os:sep {SMALL}", {}, "os:sep", "expected a Design", "got str"),
    C("N14", f"compare flink-baseline bad.toml {SMALL}", {"bad.toml": BAD_KNOB},
      "bad.toml", "num_retained", "expected an integer", "'two'"),
    C("N15", f"compare flink-baseline commit-at-pre-commit --max-states -1 {SMALL}", {},
      "--max-states", "expected an integer from 0 to 10,000,000,000", "'-1'", "ckptcheck compare --help"),
    C("r116", "spark generate --design mine.toml --walks 10 --out sp", {M: BAD_KNOB},
      "mine.toml", "num_retained", "expected an integer", "'two'"),
    C("N86", "spark generate --walks 5 --rescale nosuch=2 --out sp", {}, "--rescale[0]", "no vertex named 'nosuch'"),
]

# a user without root's file access: mode-000 files and read-only folders (7.1 #76, #85, 7.2 N13, N52, N68)
AS_A_USER = [
    C("r076", "replay secret.trace.json", {"secret.trace.json": Unreadable(GOOD)}, "secret.trace.json", "file", "Permission denied"),
    C("r085", "itf good.trace.json --out ro/x.itf.json", {**GOODF, **RO},
      "--out", "ro/x.itf.json", "cannot be written", "permission denied"),
    C("N13", f"compare flink-baseline commit-at-pre-commit --out ro/res {SMALL}", RO, "--out", "ro/res", "permission denied"),
    C("N52", "report good.trace.json --out ro/rep", {**GOODF, **RO}, "--out", "ro/rep", "permission denied"),
    C("N68", "prove key-group-ranges --report ro/rep", RO, "--report", "ro/rep", "permission denied"),
]

# without PySpark (7.2 N87; N88 is test_bad_input_traces.py's)
WITHOUT_PYSPARK = [
    C("N87", "spark generate --walks 10 --out sp", {}, "pyspark", "PySpark is not installed", "pip install 'ckptcheck[spark]'"),
]

# a real Parquet file without a 'trace' column (7.2 N84): said by pyarrow from the file's footer before Spark starts
PARQUET = C("N84", "spark replay other.parquet --out sp", {"other.parquet": parquet_without_trace},
            "other.parquet", "trace", "expected a string column 'trace'", "columns: source, steps, verdict, step")

# ---- documented outcomes that are not refusals ----

# replay's exit 1, nothing on stderr: the trace replays, but not to the verdict it records (7.1 #68, #69, 7.2 N42)
DIFFERENT = [
    C("r068", "replay wrong.trace.json", {"wrong.trace.json": trace(at(("violation", "property"), "exactly-once-output"))},
      "no property violated on this trace", "DIFFERENT from the recorded verdict", "exactly-once-output"),
    C("r069", "replay step.trace.json", {"step.trace.json": trace(at(("violation", "step"), 3))},
      "VIOLATED at step 5", "DIFFERENT from the recorded verdict", "violated at step 3"),
    C("N42", "replay other.trace.json", {"other.trace.json": trace(relabelled)},
      "design   flink-baseline", "no property violated on this trace", "DIFFERENT from the recorded verdict"),
]


BASELINE_RESULT = "results/flink-baseline.memo-*.result.json"


class Accepted(NamedTuple):
    case: Case
    code: int  # the exit status
    writes: str  # the result file (a glob) it writes, and nothing else
    warning: str = ""  # the one warning it says on stderr, if any


# edge values the table found accepted (as the audit did): no error, the result written where said
# (7.1 #7-#102, 7.2 N19-N69), and spark replay's documented exit 1 (#112, N82).  The table's commands
# searched keyed-2x2 (or their job) with a checkpoint, 7-8 s each; here a smaller scope (forward-2x2,
# or no checkpoint in the job given): the point is the edge value, and such searches would take most
# of this file's time
ACCEPTED = [
    Accepted(C("r007", f"check --design mine.toml {SMALLER} --max-seconds 20", {M: design(f"num_retained = {2**63 - 1}\n")},
               "mine: flink-baseline with num_retained = 9223372036854775807"), 0, "results/mine.memo-*.result.json"),
    # (#9: the table's --max-seconds 10 ran 10.9 s; 1 s still spends the bound in the first default scope)
    Accepted(C("r009", "check --design mine.toml --max-seconds 1", {M: design('checkpoint_mode = "unaligned"\n')},
               'mine: flink-baseline with checkpoint_mode = "unaligned"', "not searched: default scopes 2-5 of 5"),
             3, "results/mine.memo-*.result.json"),
    Accepted(C("r089", f"check --records 0 {SMALLER}", {}, "0 record(s)/split"), 0, BASELINE_RESULT),
    Accepted(C("r092", "check --max-states 0 --job keyed-2x2", {}, "INCOMPLETE: state bound 0 reached", "nothing is proved beyond"),
             3, BASELINE_RESULT),
    Accepted(C("r102", "check --unbounded --max-seconds 20", {}, "(unbounded)", "RESULT: every property holds"),
             0, BASELINE_RESULT),
    Accepted(C("N19", f"check --job job.toml {NO_CHECKPOINT}",
               job(V("source"), V("si[0]->nk", role="sink", **TPC), E("source", "si[0]->nk")), "si[0]->nk(P=2)"),
             0, BASELINE_RESULT),
    Accepted(C("N26", f"check --job job.toml {NO_CHECKPOINT}",
               job(V("source"), SINK, E("source", "sink", pattern='"POINTWISE"', partitioner='"custom"')), "source-pointwise"),
             0, BASELINE_RESULT),
    Accepted(C("N35", f"check --design mine.toml {SMALLER}", {M: design('name = "a/b"\n')}, "design   a/b"),
             0, "results/a-b.memo-*.result.json", "mine.toml: sets no knob: it is flink-baseline under the name 'a/b'"),
    Accepted(C("N38", f"check --design mine.toml {SMALLER}", {M: design(f"num_retained = {10**30}\n")}, f"num_retained = {10**30}"),
             0, "results/mine.memo-*.result.json"),
    Accepted(C("N41", f"check --design mine.toml {SMALLER}", {M: design('name = "../../etc/cron.d/x"\nsink_commit = "pre-commit"\n')},
               "design   ../../etc/cron.d/x", "committed-output-covered     VIOLATED", "results/etc-cron.d-x.memo-"),
             1, "results/etc-cron.d-x.memo-*.result.json"),
    Accepted(C("N57", f"check --max-seconds inf {SMALLER}", {}, "RESULT: every property holds"), 0, BASELINE_RESULT),
    Accepted(C("N69", f"check --out '' {SMALLER}", {}, "result written to flink-baseline.memo-"),
             0, "flink-baseline.memo-*.result.json"),
    Accepted(C("N82", "spark replay t.jsonl --partitions 0 --out sp", {"t.jsonl": lambda good: json.dumps(good) + "\n"},
               "VIOLATED"), 1, "sp/summary.json"),
    Accepted(C("r112", "spark replay mixed.jsonl --out sp",
               {"mixed.jsonl": lambda good: json.dumps(good) + "\n{not json\n" + json.dumps(good) + "\n"},
               "set aside 1 malformed trace(s)", "mixed.jsonl:2: not valid JSON", "VIOLATED committed-output-covered: 2 trace(s)"),
             1, "sp/summary.json"),
]
SLOW = {"N82": pytest.mark.skip(reason="starts Spark: 22 s in the re-run, more than the ~15 s a case may take here"),
        "r112": pytest.mark.deep}  # starts Spark (21 s in the re-run): run with -m deep
