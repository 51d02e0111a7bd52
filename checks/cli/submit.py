"""Entry point for ``spark-submit``, which runs a file rather than a module::

    spark-submit --master spark://host:7077 --py-files ckptcheck.zip checks/cli/submit.py \\
        spark generate --design flink-baseline --walks 1000000 --out /shared/results

(``ckptcheck.zip`` holds the ``ckptcheck`` package as ``pip install --no-deps --target`` lays it
out: ``ckptcheck/model``, ``ckptcheck/specs``, ``ckptcheck/checks``, ``ckptcheck/reports``.)
"""

import sys

from .main import main

if __name__ == "__main__":
    sys.exit(main())
