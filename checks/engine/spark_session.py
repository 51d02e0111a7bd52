"""The Spark session ckptcheck's Spark commands run in: a quiet one whose Python workers use this
interpreter, started only after the master URL, PySpark and Java were checked (each a one-line
refusal, before any work), and ended by Ctrl-C as every other command is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ckptcheck.specs.errors import InputError

LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def java_major_version() -> int:
    """The major version of the ``java`` Spark will use (JAVA_HOME first, then PATH)."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise InputError("java", "JAVA_HOME/PATH", "Spark needs Java 17 or newer; no java found (install a JDK, e.g. Debian's openjdk-17-jre-headless, or set JAVA_HOME)")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        raise InputError("java", java, "could not read the Java version from 'java -version'")
    major = int(m.group(1))
    if major == 1 and m.group(2):
        major = int(m.group(2))
    if major < 17:
        raise InputError("java", java, f"Spark needs Java 17 or newer, found Java {major}")
    return major


# The master URLs Spark takes (SparkContext's own forms; local-cluster is its test cluster).
MASTER_FORMS = "local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn, k8s://URL or mesos://URL"
_MASTER = re.compile(
    r"local(\[([1-9]\d*|\*)(\s*,\s*\d+)?\])?|local-cluster\[\d+\s*,\s*\d+\s*,\s*\d+\]"
    r"|spark://[^\s/:,]+:\d+(,[^\s/:,]+:\d+)*/?|yarn|k8s://\S+|mesos://\S+"
)


def check_master(master: str | None) -> None:
    """A ``--master`` URL of a form Spark takes, before Spark starts (Spark itself answers a
    bad one with a Java and Py4J traceback); ``None`` is the default (``local[*]``, or
    spark-submit's)."""
    if master is not None and not _MASTER.fullmatch(master):
        raise InputError("--master", master, f"not a Spark master URL; expected {MASTER_FORMS}")


def require_pyspark(source: str = "pyspark", field: str = "import") -> None:
    """PySpark can be imported; else one line naming ``source`` and ``field``."""
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import SparkSession  # noqa: F401
    except ImportError:
        raise InputError(source, field, "PySpark is not installed: pip install 'ckptcheck[spark]'") from None


def spark_session(master: str | None, app: str = "ckptcheck"):
    """A quiet Spark session whose Python workers use this interpreter.  A master URL of
    another form, or a Spark that does not start, is one line naming ``--master``."""
    check_master(master)
    require_pyspark()
    from pyspark.sql import SparkSession

    java_major_version()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    log4j = Path(tempfile.gettempdir()) / "ckptcheck-log4j2.properties"
    log4j.write_text(LOG4J)
    builder = SparkSession.builder.appName(app)
    if master:
        builder = builder.master(master)
    elif not os.environ.get("PYSPARK_GATEWAY_PORT"):  # not under spark-submit, which sets the master
        builder = builder.master("local[*]")
    java_opts = f"-Dlog4j.configurationFile=file:{log4j} -Dlog4j2.configurationFile=file:{log4j}"
    builder = (
        builder.config("spark.pyspark.python", sys.executable)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.executor.extraJavaOptions", java_opts)
        .config("spark.sql.execution.arrow.pyspark.enabled", "false")
    )
    try:
        session = builder.getOrCreate()
        _quiet_ctrl_c()
        return session
    except Exception as e:  # the gateway did not start, the master refused us, ...: Py4J and Java errors
        first = next((line.strip() for line in str(e).splitlines() if line.strip()), type(e).__name__)
        given = master or ("spark-submit's" if os.environ.get("PYSPARK_GATEWAY_PORT") else "local[*]")
        raise InputError("--master", given, f"Spark did not start ({first})") from None


def _quiet_ctrl_c() -> None:
    """PySpark's SIGINT handler cancels the running jobs from inside the signal handler, which
    interrupts the Py4J call the main thread is in; Py4J then logs each broken call with a
    traceback before the ``KeyboardInterrupt`` ends the command.  The job is cancelled all the
    same: this wrapper only silences that logging, so Ctrl-C ends a Spark command with one line
    and exit 130, as it ends every other."""
    import logging
    import signal

    pyspark_handler = signal.getsignal(signal.SIGINT)
    if not callable(pyspark_handler):
        return

    def handler(signum, frame):
        logging.disable(logging.CRITICAL)
        pyspark_handler(signum, frame)

    signal.signal(signal.SIGINT, handler)
