"""The Spark job: random walks generated and checked in parallel, or saved traces replayed.

``generate``: N random walks of one design in one scope.  Walk i is seeded from (seed, i), so
the result does not depend on how walks are partitioned; each walk also draws which fault
kinds it may inject (swarm testing), and injects a fault on about one step in eight.
``replay``: traces from trace files (one document a file, as ``check`` writes them), JSON-lines
files (one trace document per line), Parquet files (a string column ``trace``) or folders of
them, replayed and checked; a malformed or non-replayable trace is set aside with its reason and
counted, never fatal.  An input that holds no trace at all is bad input, refused before Spark starts.

Output (``--out DIR``): ``verdicts.parquet`` (one row per trace: source, steps, verdict,
property, step, reason), ``summary.json`` (traces, steps, violations per property, distinct
world fingerprints, action counts, time), and per violated property the shortest
counterexample as a trace file, rendered as a report.

Runs on ``local[*]`` by default; the same job runs unchanged under
``spark-submit --master URL`` (ship this package with ``--py-files``).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator

from ckptcheck.model.actions import ACTION_TYPES
from ckptcheck.specs.errors import InputError

from ckptcheck.checks.engine.spark_session import LOG4J, MASTER_FORMS, check_master, java_major_version, require_pyspark, spark_session  # noqa: F401
from .trace import FORMAT, TOO_DEEP

MALFORMED_EXAMPLES = 5
FAULT_KINDS = tuple(name for name, cls in ACTION_TYPES.items() if cls.fault)


# --- pure per-trace work (runs in the Python workers) -----------------------------------------


def _check_walk(spec, rng: random.Random, max_steps: int) -> dict:
    """One random walk: swarm-chosen fault kinds, fault on ~1 step in 8; stops at the first
    violation.  Returns its verdict, its actions (as objects) and what it covered."""
    enabled_faults = {k for k in FAULT_KINDS if rng.random() < 0.5}
    w = spec.initial_states()[0]
    actions = []
    fingerprints = {hash(w)}
    counts: Counter = Counter()
    violation = None
    for _ in range(max_steps):
        acts = spec.actions(w)
        progress = [a for a in acts if spec.is_progress(a)]
        faults = [a for a in acts if not spec.is_progress(a) and type(a).__name__ in enabled_faults]
        if not progress and not faults:
            break
        pool = faults if faults and (not progress or rng.random() < 0.125) else progress
        a = pool[rng.randrange(len(pool))]
        w = spec.next_state(w, a)
        actions.append(a)
        counts[type(a).__name__] += 1
        fingerprints.add(hash(w))
        violation = spec.always_violation(w, len(actions))
        if violation:
            break
    if violation is None:
        violation = spec.end_violation(w, len(actions))
    return {"violation": violation, "actions": actions, "fingerprints": fingerprints, "counts": counts}


class _Agg:
    """Per-partition aggregate: counts, fingerprints, shortest counterexample per property."""

    def __init__(self) -> None:
        self.traces = 0
        self.malformed = 0
        self.malformed_reasons: Counter = Counter()
        self.malformed_examples: list[tuple[str, str]] = []  # (file:line, reason), the first few
        self.steps = 0
        self.violations: Counter = Counter()
        self.fingerprints: set[int] = set()
        self.counts: Counter = Counter()
        self.shortest: dict[str, dict] = {}

    def set_aside(self, source: str, kind: str, reason: str) -> None:
        self.malformed += 1
        self.malformed_reasons[kind] += 1
        if len(self.malformed_examples) < MALFORMED_EXAMPLES:
            self.malformed_examples.append((source, reason))

    def add(self, verdict: dict, steps: int, fingerprints: set, counts: Counter, doc_factory) -> None:
        self.traces += 1
        self.steps += steps
        self.fingerprints |= fingerprints
        self.counts.update(counts)
        v = verdict
        if v is not None:
            self.violations[v["property"]] += 1
            best = self.shortest.get(v["property"])
            if best is None or v["step"] < best["violation"]["step"]:
                self.shortest[v["property"]] = doc_factory()

    def as_dict(self) -> dict:
        return {
            "traces": self.traces,
            "malformed": self.malformed,
            "malformed_reasons": dict(self.malformed_reasons),
            "malformed_examples": self.malformed_examples,
            "steps": self.steps,
            "violations": dict(self.violations),
            "fingerprints": self.fingerprints,
            "counts": dict(self.counts),
            "shortest": self.shortest,
        }


def generate_partition(index: int, design_name: str, design_knobs: dict, scope_json: dict, seed: int, walks: range, max_steps: int) -> Iterator[tuple]:
    """Worker side of ``generate``: rows ("row", ...) for each walk, then one ("agg", ...)."""
    from ckptcheck.specs.portable import design_from_trace, scope_from_trace
    from ckptcheck.specs.spec import Spec

    from .trace import trace_document

    design = design_from_trace({"name": design_name, "knobs": design_knobs}, "<spark>")
    scope = scope_from_trace(scope_json, "<spark>")
    spec = Spec(design, scope)
    agg = _Agg()
    for i in walks:
        rng = random.Random(seed * 1_000_003 + i)
        r = _check_walk(spec, rng, max_steps)
        v = r["violation"]
        agg.add(
            v, len(r["actions"]), r["fingerprints"], r["counts"],
            lambda r=r, v=v, i=i: trace_document(spec, r["actions"][: v["step"]], engine=f"spark-walk {i}", seed=seed, violation=v),
        )
        yield ("row", f"walk {i}", len(r["actions"]), "violated" if v else "holds", v and v["property"], v and v["step"], v and v["reason"])
    yield ("agg", agg.as_dict())


def replay_partition(lines: Iterable[tuple[str, str]]) -> Iterator[tuple]:
    """Worker side of ``replay``: (source, trace JSON text) -> rows, then one aggregate."""
    from .trace import replay

    agg = _Agg()
    for source, text in lines:
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, TypeError) as e:
            agg.set_aside(source, "not valid JSON", f"not valid JSON ({e})")
            yield ("row", source, 0, "malformed", None, None, f"not valid JSON ({e})")
            continue
        except RecursionError:
            agg.set_aside(source, "nested too deeply", TOO_DEEP)
            yield ("row", source, 0, "malformed", None, None, TOO_DEEP)
            continue
        try:
            outcome = replay(doc, source)
        except InputError as e:
            agg.set_aside(source, _reason_class(e), f"{e.field}: {e.expected}")
            yield ("row", source, 0, "malformed", None, None, f"{e.field}: {e.expected}")
            continue
        except Exception as e:  # a trace must never crash the job
            agg.set_aside(source, type(e).__name__, f"{type(e).__name__}: {e}")
            yield ("row", source, 0, "malformed", None, None, f"{type(e).__name__}: {e}")
            continue
        v = outcome.violation
        counts = Counter(type(a).__name__ for a in outcome.actions)
        agg.add(v, outcome.steps, {hash(w) for w in outcome.worlds}, counts, lambda doc=doc, v=v: {**doc, "violation": v})
        yield ("row", source, outcome.steps, "violated" if v else "holds", v and v["property"], v and v["step"], v and v["reason"])
    yield ("agg", agg.as_dict())


def _reason_class(e: InputError) -> str:
    field = re.sub(r"\[\d+\]", "[]", e.field)
    if "not enabled" in e.expected:
        return "action not enabled"
    if field.endswith(".type") and "unknown action" in e.expected:
        return "unknown action"
    return field


def merge_aggregates(aggs: list[dict]) -> dict:
    out = {"traces": 0, "malformed": 0, "malformed_reasons": Counter(), "malformed_examples": [], "steps": 0,
           "violations": Counter(), "counts": Counter()}
    prints: set[int] = set()
    shortest: dict[str, dict] = {}
    for a in aggs:
        out["traces"] += a["traces"]
        out["malformed"] += a["malformed"]
        out["malformed_reasons"].update(a["malformed_reasons"])
        out["malformed_examples"] += a["malformed_examples"]
        out["steps"] += a["steps"]
        out["violations"].update(a["violations"])
        out["counts"].update(a["counts"])
        prints |= a["fingerprints"]
        for prop, doc in a["shortest"].items():
            if prop not in shortest or doc["violation"]["step"] < shortest[prop]["violation"]["step"]:
                shortest[prop] = doc
    out["distinct_states"] = len(prints)
    out["shortest"] = shortest
    return out


# --- driver ----------------------------------------------------------------------------------


def _progress_thread(sc, stop: threading.Event, say) -> threading.Thread:
    def run():
        tracker = sc.statusTracker()
        while not stop.wait(3.0):
            for sid in tracker.getActiveStageIds():
                info = tracker.getStageInfo(sid)
                if info:
                    say(f"  ... stage {sid}: {info.numCompletedTasks}/{info.numTasks} partitions done")

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


ROW_SCHEMA = "source string, steps int, verdict string, property string, step int, reason string"
# what a partition yields, as one DataFrame: its rows, and one row (kind "agg") carrying the
# partition's aggregate as JSON, written by the job's own workers
_OUTPUT_SCHEMA = "kind string, " + ROW_SCHEMA + ", agg string"


def _flat(r: tuple) -> tuple:
    if r[0] == "row":
        return (*r, None)
    a = dict(r[1], fingerprints=sorted(r[1]["fingerprints"]))
    return ("agg", None, None, None, None, None, None, json.dumps(a, separators=(",", ":")))


def _finish(spark, rdd, out: Path, extra: dict, started: float, say) -> dict:
    """One pass of the Python workers: their rows and aggregates become one DataFrame cached in
    the JVM, from which the verdicts are written and the aggregates collected.  (A cached RDD
    would be read back through Python workers twice more: once to write, once to collect.)"""
    from pyspark.sql import functions as F

    from .trace import write_json_atomic

    df = spark.createDataFrame(rdd.map(_flat), _OUTPUT_SCHEMA, verifySchema=False).cache()
    out.mkdir(parents=True, exist_ok=True)
    try:
        df.where(F.col("kind") == "row").drop("kind", "agg").write.mode("overwrite").parquet(str(out / "verdicts.parquet"))
        aggs = [json.loads(r[0]) for r in df.where(F.col("kind") == "agg").select("agg").collect()]
    finally:
        df.unpersist()
    for a in aggs:
        a["fingerprints"] = set(a["fingerprints"])
        a["malformed_examples"] = [tuple(e) for e in a["malformed_examples"]]
    merged = merge_aggregates(aggs)
    shortest = merged.pop("shortest")
    written = {}
    for prop, doc in sorted(shortest.items()):
        path = out / "counterexamples" / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', doc['design']['name'])}--{prop}.trace.json"
        write_json_atomic(path, doc)
        written[prop] = str(path)
    elapsed = time.perf_counter() - started
    summary = {
        **extra,
        "traces": merged["traces"],
        "malformed": merged["malformed"],
        "malformed_reasons": dict(merged["malformed_reasons"]),
        "malformed_examples": sorted(merged["malformed_examples"], key=_source_order)[:MALFORMED_EXAMPLES],
        "steps": merged["steps"],
        "violations": dict(merged["violations"]),
        "distinct_states": merged["distinct_states"],
        "action_counts": dict(sorted(merged["counts"].items())),
        "seconds": round(elapsed, 1),
        "traces_per_second": round(merged["traces"] / elapsed) if elapsed else None,
        "steps_per_second": round(merged["steps"] / elapsed) if elapsed else None,
        "shortest_counterexamples": written,
        "master": spark.sparkContext.master,
    }
    write_json_atomic(out / "summary.json", summary)
    return summary


def run_generate(design, scope, *, walks: int, max_steps: int, seed: int, partitions: int | None, out: Path, master: str | None, say=print) -> dict:
    if design.replaced():
        comp, qual = next(iter(design.replaced().items()))
        raise InputError(design.name, f"components.{comp}", f"spark generate runs presets, catalog entries and TOML designs; {qual}"
                         " would have to be importable on every worker (check it with ckptcheck check --engine stateful)")
    spark = spark_session(master)
    sc = spark.sparkContext
    parts = partitions or max(2, sc.defaultParallelism * 4)
    bounds = [(walks * k // parts, walks * (k + 1) // parts) for k in range(parts)]
    name, knobs, scope_json = design.name, design.knobs(), scope.to_json()
    started = time.perf_counter()
    stop = threading.Event()
    _progress_thread(sc, stop, say)
    try:
        rdd = sc.parallelize(range(parts), parts).mapPartitionsWithIndex(
            lambda i, _it: generate_partition(i, name, knobs, scope_json, seed, range(*bounds[i]), max_steps)
        )
        extra = {"mode": "generate", "design": name, "scope": scope_json, "seed": seed, "walks": walks, "max_steps": max_steps, "partitions": parts}
        return _finish(spark, rdd, out, extra, started, say)
    finally:
        stop.set()


def _source_order(example: tuple[str, str]) -> tuple:
    """file:line sources in file order, then line number order (a whole-file trace is its file)."""
    src = example[0]
    for sep in (":", "#"):
        name, _, line = src.rpartition(sep)
        if name and line.isdigit():
            return (name, int(line))
    return (src, 0)


# What a trace holds wherever it is (a JSON line, a document, a Parquet cell): its format's name.
TRACE_MARK = FORMAT.encode()
# A file whose first line is not JSON is tried whole as one JSON document up to this size.
DOCUMENT_MAX_BYTES = 256 << 20
FIRST_LINE_MAX_BYTES = 16 << 20


def _parquet_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.suffix == ".parquet" else []
    return sorted(path.glob("*.parquet"))


def _holds_a_trace(f: Path) -> bool:
    """Whether ``f`` names the trace format anywhere (read in chunks; stops at the first)."""
    tail = b""
    with f.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            if TRACE_MARK in tail + chunk:
                return True
            tail = chunk[-(len(TRACE_MARK) - 1):]
    return False


def _is_document(f: Path) -> bool:
    """Whether ``f`` is one JSON document over several lines (a ``.trace.json`` as ``check``
    writes it) rather than JSON lines: its first non-blank line is not JSON on its own, and the
    file is named ``.json`` or reads whole as one JSON value.  A file whose first line is JSON
    is JSON lines (a one-line file reads the same either way)."""
    with f.open("rb") as fh:
        while first := fh.readline(FIRST_LINE_MAX_BYTES):
            if first.strip():
                break
    try:
        json.loads(first)
        return False
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        pass
    if f.name.endswith(".json"):
        return True
    if f.stat().st_size > DOCUMENT_MAX_BYTES:
        return False
    try:
        json.loads(f.read_bytes())
    except (ValueError, RecursionError):
        return False
    return True


def check_inputs(paths: list[str]) -> list[tuple[str, str]]:
    """Everything that can be known about the inputs before Spark starts: they exist, a
    ``.parquet`` file is Parquet (its PAR1 magic numbers) with a column ``trace`` (where pyarrow
    reads its footer), and each other input holds a trace.
    Returns what to read: ``(path, kind)`` with kind ``parquet`` (a file or folder), ``lines``
    (JSON lines, one trace a line) or ``document`` (one trace, the whole file).  A folder's
    files that hold no trace are passed over, as are its names starting with . or _ (as Spark does)."""
    plan: list[tuple[str, str]] = []
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise InputError(p, "file", "no such trace file or folder")
        parquet = _parquet_files(path)
        for f in parquet:
            try:
                with f.open("rb") as fh:
                    head = fh.read(4)
                    fh.seek(max(0, f.stat().st_size - 4))
                    tail = fh.read(4)
            except OSError as e:
                raise InputError(str(f), "file", f"cannot be read ({e.strerror})") from None
            if head != b"PAR1" or tail != b"PAR1":
                raise InputError(str(f), "parquet", "not a Parquet file (no PAR1 magic number); JSON-lines traces go in a file not named .parquet")
        if parquet:
            _check_trace_column(p, parquet)
            plan.append((p, "parquet"))
            continue
        files = [path] if path.is_file() else sorted(x for x in path.iterdir() if x.is_file() and not x.name.startswith((".", "_")))
        found = 0
        for f in files:
            try:
                if not _holds_a_trace(f):
                    continue
                kind = "document" if _is_document(f) else "lines"
            except OSError as e:
                raise InputError(str(f), "file", f"cannot be read ({e.strerror})") from None
            plan.append((p if f is path else str(f), kind))
            found += 1
        if not found:
            raise InputError(p, "traces", f"no trace in the input: nothing in {'it' if path.is_file() else 'its files'} is a"
                             f" ckptcheck trace (expected JSON documents with \"format\": \"{FORMAT}\": a .trace.json"
                             " file, JSON lines, or Parquet with a column 'trace')")
    return plan


def _check_trace_column(p: str, files: list[Path]) -> None:
    """Parquet input without a column ``trace`` (in none of its files), said from the files' footers
    before Spark starts, where pyarrow can be imported; without pyarrow, ``_read_inputs`` says it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return
    try:
        columns = [pq.read_schema(f).names for f in files]
    except Exception:  # a footer pyarrow cannot read: left to Spark, as without pyarrow
        return
    if not any("trace" in names for names in columns):
        raise InputError(p, "trace", f"expected a string column 'trace' (columns: {', '.join(columns[0])})")


def line_ranges(path: str, parts: int) -> list[tuple[str, str, int, int]]:
    """A JSON-lines file cut into ``parts`` byte ranges ``(name, absolute path, start, end)`` for the workers to
    read themselves (``read_line_range``), so that its text crosses no JVM and is read once (a
    JVM text file numbered with ``zipWithIndex`` was shipped to the Python workers twice: once to
    count each partition's lines, once to replay them)."""
    size = Path(path).stat().st_size
    cuts = sorted({size * k // parts for k in range(parts)} | {size})
    where = str(Path(path).resolve())  # a worker's working folder need not be ours
    return [(path, where, a, b) for a, b in zip(cuts, cuts[1:])]


def read_line_range(task: tuple[str, str, int, int]) -> Iterator[tuple[str, str]]:
    """(file:line, text) for each non-blank line that starts in ``[start, end)`` (a line
    belongs to the range its first byte is in, as Hadoop's line reader has it); line numbers
    count every line of the file from 1, so each range counts the newlines before it."""
    name, path, start, end = task
    with open(path, "rb") as f:
        number = 1
        if start:
            left = start - 1
            while left > 0:  # newlines before the byte before start, in chunks
                chunk = f.read(min(left, 1 << 20))
                number += chunk.count(b"\n")
                left -= len(chunk)
            if f.read(1) != b"\n":  # start is inside a line that began in the previous range
                f.readline()
            number += 1  # the newline that ended the line before the first one here
        position = f.tell()
        while position < end:
            raw = f.readline()
            if not raw:
                break
            position += len(raw)
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if text.strip():
                yield (f"{name}:{number}", text)
            number += 1


def _read_inputs(spark, plan: list[tuple[str, str]], partitions: int | None):
    """(source, text) pairs from the inputs ``check_inputs`` planned: a JSON line's source is
    file:line, a Parquet row's file#row, a whole-file trace's its file."""
    sc = spark.sparkContext
    target = partitions or sc.defaultParallelism * 2
    rdds = []
    documents = [(p, Path(p).read_bytes().decode("utf-8", errors="replace")) for p, kind in plan if kind == "document"]
    if documents:
        rdds.append(sc.parallelize(documents, max(1, min(len(documents), target))))
    n_lines = sum(kind == "lines" for _, kind in plan)
    for p, kind in plan:
        if kind == "parquet":
            df = spark.read.parquet(p)
            if "trace" not in df.columns:
                raise InputError(p, "trace", f"expected a string column 'trace' (columns: {', '.join(df.columns)})")
            rdds.append(df.select("trace").rdd.zipWithIndex().map(lambda r, p=p: (f"{p}#{r[1]}", r[0][0])))
        elif kind == "lines":
            ranges = line_ranges(p, max(1, -(-target // n_lines)))
            rdds.append(sc.parallelize(ranges, len(ranges)).flatMap(read_line_range))
    return sc.union(rdds) if len(rdds) > 1 else rdds[0]


def run_replay(paths: list[str], *, out: Path, master: str | None, partitions: int | None = None, say=print) -> dict:
    plan = check_inputs(paths)
    spark = spark_session(master)
    started = time.perf_counter()
    stop = threading.Event()
    _progress_thread(spark.sparkContext, stop, say)
    try:
        rdd = _read_inputs(spark, plan, partitions).mapPartitions(replay_partition)
        return _finish(spark, rdd, out, {"mode": "replay", "inputs": paths}, started, say)
    finally:
        stop.set()
