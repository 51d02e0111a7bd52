"""``ckptcheck conform``: the model's rules and the Flink classes they mirror, called on the same
inputs.  ``families`` lists the families of cases (``keys``, ``state``, ``graph``, ``plan``; each case
an ``op``), ``runner`` runs and judges them, ``java/`` holds the Java side that
``checks.flinkjvm`` compiles against Flink's jar."""
