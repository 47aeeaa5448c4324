"""CK+ recorded sequences of a split, as the composed change benches play them (``evals.transitions``,
``evals.departures``)."""

from __future__ import annotations

from pathlib import Path

from evals.data.assemble import default_root, load_manifest


def sequences(split: str, root: Path | None = None) -> tuple[dict[str, dict[str, list[list[str]]]], list[str]]:
    """subject -> emotion -> that subject's sequences of the emotion (each its frame paths in order), and the
    subjects with two emotions or more, sorted; from the assembled ``ckplus`` set under ``root`` (default
    ``<cache>/data``).

    Raises:
        FileNotFoundError: CK+ is not assembled.
    """
    seqs: dict[str, dict[str, dict[str, list[str]]]] = {}
    for r in load_manifest(root or default_root(), "ckplus", split):
        seq = Path(r["path"]).name.rsplit("_", 1)[0]  # Sxxx_yyy
        seqs.setdefault(r["person"], {}).setdefault(r["label"], {}).setdefault(seq, []).append(r["path"])
    out = {p: {e: [sorted(f) for f in s.values()] for e, s in by.items()} for p, by in seqs.items()}
    return out, sorted(p for p, by in out.items() if len(by) >= 2)
