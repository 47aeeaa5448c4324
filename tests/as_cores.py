"""Run ``python -m agents.run`` as a machine with N cores would: ``python -m tests.as_cores N ARGS...``.

``os.cpu_count()`` reads N (with ``OMP_NUM_THREADS``, which ``tests/test_cores.py`` sets to N, it sets CTranslate2's
threads; it also sets the sentence encoder's, and whether re-identification takes a worker process), and
onnxruntime's intra-op threads are N wherever the code leaves them to the machine
(``tools.perception.cpu_onnx.intra_op_threads``; onnxruntime's own default is one per physical core).
"""

import os
import runpy
import sys

if __name__ == "__main__":
    cores = int(sys.argv.pop(1))
    os.cpu_count = lambda: cores

    from tools.perception.cpu_onnx import intra_op_threads

    with intra_op_threads(cores):
        runpy.run_module("agents.run", run_name="__main__", alter_sys=True)
