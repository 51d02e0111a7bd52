"""The optional compiled loop of the memo engine (``checks/engine/_memo_core.pyx``).

Everything else is in ``pyproject.toml``.  Where Cython or a C compiler is missing, or the build
fails, the install goes on without the extension and the memo engine runs its Python loop, with
the same results (``ckptcheck.checks.engine.memo_core.available()`` says which).  Set
``CKPTCHECK_NO_COMPILE=1`` to install without it on purpose.
"""

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the extension is an optimisation."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 (any failure: no compiler, no headers)
            print(f"ckptcheck: the memo engine's compiled loop was not built ({e}); the Python loop will run", file=sys.stderr)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            print(f"ckptcheck: the memo engine's compiled loop was not built ({e}); the Python loop will run", file=sys.stderr)


def extensions():
    if os.environ.get("CKPTCHECK_NO_COMPILE"):
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:
        print("ckptcheck: Cython is not installed; the memo engine's Python loop will run", file=sys.stderr)
        return []
    ext = Extension("ckptcheck.checks.engine._memo_core", ["checks/engine/_memo_core.pyx"], extra_compile_args=["-O2"])
    try:
        return cythonize([ext], language_level=3, quiet=True)
    except Exception as e:  # noqa: BLE001
        print(f"ckptcheck: cythonize failed ({e}); the memo engine's Python loop will run", file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
