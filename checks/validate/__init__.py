"""``ckptcheck validate``: real Flink runs, recorded (``recorder``, with the job in ``runs/``), read back
(``runfile``) and searched for in the model (``matching``): a run the model cannot produce is a
model bug or a Flink one."""
