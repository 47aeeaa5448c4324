"""Training, fitting and measurement studies: the scripts that made the shipped heads (``train_*``), fitted
the fusion (``fit_fusion``) and measured single parts (speech, word times, diarization, faces, ...), each
run as ``python -m studies.NAME`` from a source checkout with its result file under ``evals/results/``.
Not installed: the package the users install holds the pipeline and the evaluation harness (``evals``)."""
