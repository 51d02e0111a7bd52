"""Reaching Flink's own classes: the distribution jar, a JDK, and one JVM answering JSON lines.

``ckptcheck conform`` calls the Flink classes the model mirrors.  They come from a Flink
distribution jar (``flink-dist-*.jar``): by default the one the ``apache-flink`` package ships
(``pyflink/lib``), else ``$FLINK_HOME/lib``, or any build named with ``--flink-dist``.  The Java
side (``checks/conform/java/*.java``, one class per family of cases) is compiled at first use against
that jar into a cache folder keyed by the jar and the sources, one family at a time if the
whole set does not compile, so that a build whose classes lack a method one family needs
leaves the others running.  One JVM is started per run and always ended and reaped (also on
Ctrl-C and on error); nothing goes over the network.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

JAVA_DIR = Path(__file__).parent / "conform" / "java"
PACKAGE = "ckptcheck.conform"


class FlinkUnavailable(Exception):
    """Bad input or a missing tool: one line, exit status 2."""


@dataclass(frozen=True)
class FlinkDist:
    """A Flink distribution jar and what its manifest says it is."""

    jar: Path
    version: str


def default_dist_jar() -> Path | None:
    """The ``flink-dist`` jar of the installed ``apache-flink`` package, else of
    ``$FLINK_HOME/lib``; ``None`` when neither has one."""
    candidates: list[Path] = []
    home = os.environ.get("FLINK_HOME")
    spec = importlib.util.find_spec("pyflink")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidates.extend(sorted(Path(loc, "lib").glob("flink-dist*.jar")))
    if home:
        candidates.extend(sorted(Path(home, "lib").glob("flink-dist*.jar")))
    return candidates[0] if candidates else None


def open_dist(path: str | os.PathLike | None) -> FlinkDist:
    """Check that ``path`` (or the default jar) is a Flink distribution jar; raise
    :class:`FlinkUnavailable` with one line naming the file and what is wrong."""
    if path is None:
        jar = default_dist_jar()
        if jar is None:
            raise FlinkUnavailable(
                "--flink-dist: no Flink distribution found: install the extra (pip install -e '.[flink]'), "
                "set FLINK_HOME, or pass --flink-dist PATH/flink-dist-*.jar")
    else:
        jar = Path(path)
    if jar.is_dir():
        raise FlinkUnavailable(f"--flink-dist: {jar}: is a folder (expected the flink-dist-*.jar file in it, such as"
                               f" {jar}/flink-dist-2.3.0.jar)")
    if not jar.is_file():
        raise FlinkUnavailable(f"--flink-dist: {jar}: no such file (expected a flink-dist-*.jar)")
    try:
        with zipfile.ZipFile(jar) as z:
            names = set(z.namelist())
            manifest = z.read("META-INF/MANIFEST.MF").decode("utf-8", "replace") if "META-INF/MANIFEST.MF" in names else ""
    except (zipfile.BadZipFile, OSError) as e:
        raise FlinkUnavailable(f"--flink-dist: {jar}: not a jar ({e})") from None
    if "org/apache/flink/runtime/checkpoint/CheckpointCoordinator.class" not in names:
        raise FlinkUnavailable(f"--flink-dist: {jar}: not a Flink distribution (it has no org.apache.flink.runtime.checkpoint.CheckpointCoordinator)")
    if "org/apache/flink/shaded/jackson2/com/fasterxml/jackson/databind/ObjectMapper.class" not in names:
        raise FlinkUnavailable(f"--flink-dist: {jar}: not a Flink distribution jar (it has no shaded Jackson; pass flink-dist-*.jar, not a module jar)")
    m = re.search(r"^Implementation-Version:\s*(\S+)", manifest, re.M)
    return FlinkDist(jar.resolve(), m.group(1) if m else "unknown")


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    if home and Path(home, "bin", name).exists():
        return str(Path(home, "bin", name))
    found = shutil.which(name)
    if not found:
        raise FlinkUnavailable(f"{name}: not found (a JDK 11 or later is needed: set JAVA_HOME or put {name} on PATH)")
    return found


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "ckptcheck", "conform")


def _sources() -> list[Path]:
    return sorted(JAVA_DIR.glob("*.java"))


def compile_helper(dist: FlinkDist) -> tuple[Path, dict[str, str]]:
    """Compile the Java side against ``dist`` (cached).  Returns the class folder and, per
    family class that did not compile, the compiler's first error naming the missing symbol."""
    st = dist.jar.stat()
    h = hashlib.sha256(f"{dist.jar}:{st.st_size}:{st.st_mtime_ns}".encode())
    for src in _sources():
        h.update(src.name.encode())
        h.update(src.read_bytes())
    out = _cache_root() / h.hexdigest()[:16]
    broken_file = out / "broken.json"
    if (out / "ok").exists():
        return out, json.loads(broken_file.read_text()) if broken_file.exists() else {}
    javac = _tool("javac")
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cp = str(dist.jar)
    server = JAVA_DIR / "Server.java"
    families = [s for s in _sources() if s != server]
    broken: dict[str, str] = {}
    r = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", cp, *map(str, _sources())],
                       capture_output=True, text=True)
    if r.returncode != 0:
        r = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", cp, str(server)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise FlinkUnavailable(f"--flink-dist: {dist.jar}: the conform helper does not compile against it: {_first_error(r.stderr)}")
        # leave out the families the compiler names, until the rest compiles together
        left = list(families)
        while left:
            r = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", f"{cp}{os.pathsep}{tmp}",
                                *map(str, left)], capture_output=True, text=True)
            if r.returncode == 0:
                break
            named = {s for s in left if re.search(rf"(^|[/\\]){re.escape(s.name)}:\d+: error:", r.stderr, re.M)} or {left[0]}
            for src in named:
                broken[src.stem] = _first_error(_errors_of(r.stderr, src.name))
            left = [s for s in left if s not in named]
    (tmp / "broken.json").write_text(json.dumps(broken))
    (tmp / "ok").write_text("")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out, broken


def _errors_of(stderr: str, file_name: str) -> str:
    """The part of javac's output about ``file_name`` (an error line and what follows it)."""
    out, keep = [], False
    for ln in stderr.splitlines():
        if ": error:" in ln or ": warning:" in ln:
            keep = file_name in ln
        if keep:
            out.append(ln)
    return "\n".join(out) or stderr


def _first_error(stderr: str) -> str:
    """The compiler's first error, with the symbol it could not find, on one line."""
    lines = stderr.strip().splitlines()
    first = next((ln for ln in lines if ": error:" in ln), lines[0] if lines else "javac failed")
    symbol = next((ln.strip() for ln in lines if ln.strip().startswith("symbol:")), "")
    where = next((ln.strip() for ln in lines if ln.strip().startswith("location:")), "")
    msg = first.split(": error:", 1)[-1].strip()
    return " ".join(x for x in (msg, symbol, where) if x)


class FlinkJVM:
    """One JVM running ``ckptcheck.conform.Server`` over a pipe; a context manager that always
    ends and reaps it."""

    def __init__(self, dist: FlinkDist, classes: Path):
        java = _tool("java")
        self._stderr: list[str] = []
        self.proc = subprocess.Popen(
            [java, "-Xss8m", "-XX:+UseSerialGC", "-cp", f"{dist.jar}{os.pathsep}{classes}", f"{PACKAGE}.Server"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", bufsize=1 << 16, start_new_session=True)
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if len(self._stderr) < 50:
                self._stderr.append(line.rstrip())

    def call(self, family: str, op: str, cases: list) -> list | str:
        """Flink's answers to ``cases`` (``{"v": value}`` or ``{"x": exception}`` each), or a
        string naming what the build lacks."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"family": family, "op": op, "cases": cases}, separators=(",", ":")) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            tail = " | ".join(x for x in self._stderr if "SLF4J" not in x)[-400:]
            raise FlinkUnavailable(f"the Flink JVM ended unexpectedly (exit {self.proc.poll()}): {tail}")
        got = json.loads(line)
        if "missing" in got:
            return got["missing"]
        return got["answers"]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                if f:
                    f.close()
            except OSError:
                pass

    def __enter__(self) -> "FlinkJVM":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
