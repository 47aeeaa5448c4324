"""Run ``python -m agents.run`` as a machine with N cores would: ``python -m tests.as_cores N ARGS...``.

``os.cpu_count()`` reads N (it sets CTranslate2's threads, the sentence encoder's, and whether re-identification
takes a worker process), and so do onnxruntime's intra-op threads wherever the code leaves them to the machine
(``tools.perception.cpu_onnx.intra_op_threads``; onnxruntime's own default is one per physical core). Used by
``tests/test_cores.py``.
"""

import os
import runpy
import sys

if __name__ == "__main__":
    cores = int(sys.argv.pop(1))
    os.cpu_count = lambda: cores

    from tools.perception import cpu_onnx

    cpu_onnx._THREADS[0] = cores
    runpy.run_module("agents.run", run_name="__main__", alter_sys=True)
