"""Does compiling the model as it is make a search faster?  The model's modules and the
properties, compiled with Cython, against the same Python files, on one scope, in one run.

    python benchmarks/compiled.py [baseline|baseline-no-faults] [--rounds N] [--build DIR]

Needs Cython and a C compiler (neither is a dependency of ckptcheck: ``pip install cython``).
Copies ``model/``, ``specs/``, ``checks/`` and ``reports/`` into a build folder laid out as the
``ckptcheck`` namespace, compiles every module of ``model/`` and the properties (``specs/property.py``, ``specs/properties.py`` and each feature's ``properties.py``) there
(Cython's pure-Python mode: no type declarations, annotations not enforced, so the compiled
module runs the same code), then times the search in fresh processes, the Python files and the
compiled ones alternated, ``--rounds`` times each.  Each run's states, transitions and findings
must agree, or the script stops: a compiled model is only of use if it is the same model.
Last line: the figure (best of the rounds, Python over compiled).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One search in a fresh process; prints one JSON line.
RUN = """
import json, sys, time
from ckptcheck.checks.engine.explore import explore
from ckptcheck.specs.designs import BASELINE
from ckptcheck.specs.scopes import default_scope
from ckptcheck.specs.spec import Spec
import ckptcheck.model.protocol as protocol
scope = default_scope()
if sys.argv[1] == "baseline-no-faults":
    scope = scope.with_(max_failures=0, max_declines=0)
t0 = time.perf_counter()
out = explore(Spec(BASELINE, scope), store="fingerprint", workers=1)
print(json.dumps({"seconds": time.perf_counter() - t0, "states": out.states, "transitions": out.transitions,
                  "found": sorted(out.discoveries), "compiled": not protocol.__file__.endswith(".py")}))
"""

SETUP = """
import glob
from setuptools import setup
from Cython.Build import cythonize
mods = [f for f in glob.glob("ckptcheck/model/*.py") + glob.glob("ckptcheck/specs/propert*.py") + glob.glob("ckptcheck/specs/*/properties.py")
        if not f.endswith("__init__.py")]
setup(ext_modules=cythonize(mods, language_level=3, nthreads=2, quiet=True,
                            compiler_directives={"binding": True, "annotation_typing": False}))
"""


def build(where: Path) -> None:
    """The package copied under ``where/ckptcheck`` and its model compiled in place."""
    pkg = where / "ckptcheck"
    for d in ("model", "specs", "checks", "reports"):
        shutil.copytree(ROOT / d, pkg / d, ignore=shutil.ignore_patterns("__pycache__"))
    (where / "setup_compiled.py").write_text(SETUP)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "setup_compiled.py", "build_ext", "-j", "2"], cwd=where,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"benchmarks/compiled.py: the Cython build in {where} failed (a C compiler and Python's headers are"
                 f" needed): {last}")
    # ckptcheck is a namespace (no __init__.py), so setuptools names the extensions model.* and
    # writes them under build/lib*/model: put each next to its source
    (lib,) = (where / "build").glob("lib*")
    for so in lib.glob("**/*.so"):
        shutil.copy2(so, pkg / so.relative_to(lib))
    print(f"compiled {len(list(pkg.glob('**/*.so')))} modules in {time.perf_counter() - t0:.0f} s", flush=True)


def search(scope: str, pythonpath: str | None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryDirectory() as cwd:  # not ROOT: its model/ must not shadow the build
        done = subprocess.run([sys.executable, "-c", RUN, scope], env=env, cwd=cwd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scope", nargs="?", default="baseline-no-faults", choices=("baseline", "baseline-no-faults"))
    p.add_argument("--rounds", type=int, default=2, choices=range(1, 11), metavar="1..10")
    p.add_argument("--build", default=None, help="a folder holding an earlier build (default: build into a temporary one)")
    args = p.parse_args()
    try:
        import Cython  # noqa: F401
    except ImportError:
        print("benchmarks/compiled.py: Cython is not installed; expected `pip install cython` first", file=sys.stderr)
        sys.exit(2)
    tmp = None
    if args.build:
        where = Path(args.build)
        if not any((where / "ckptcheck" / "model").glob("*.so")):
            p.error(f"--build {where}: expected a folder an earlier run built (ckptcheck/model/*.so inside it)")
    else:
        tmp = tempfile.TemporaryDirectory()
        where = Path(tmp.name)
        build(where)
    try:
        times: dict[bool, list[float]] = {False: [], True: []}
        first = None
        for r in range(args.rounds):
            for compiled in (False, True):
                got = search(args.scope, str(where) if compiled else None)
                assert got["compiled"] == compiled, "the build was not the one imported"
                same = {k: got[k] for k in ("states", "transitions", "found")}
                if first is None:
                    first = same
                elif same != first:
                    sys.exit(f"the compiled and the Python model disagree: {same} against {first}")
                times[compiled].append(got["seconds"])
                print(f"round {r + 1}, {'compiled' if compiled else 'python  '}: {got['seconds']:.1f} s, "
                      f"{got['states']:,} states, {got['transitions']:,} transitions", flush=True)
    finally:
        if tmp is not None:
            tmp.cleanup()
    py, cy = min(times[False]), min(times[True])
    print(f"compiled {args.scope}: {cy:.1f} s against {py:.1f} s in Python (best of {args.rounds}): {py / cy:.2f}x")


if __name__ == "__main__":
    main()
