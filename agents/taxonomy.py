"""Answer label sets (taxonomies) as data: AffectNet-8 (default), VQAU-13, Ekman-6, MER-6, or a user's file.

The perception tools read AffectNet-8 (faces, voice, words), so the reasoning runs in AffectNet-8 and a
taxonomy says how to name what was read. Each label lists the AffectNet-8 readings that support it with a
weight in (0, 1] and the source of that mapping (``basis``); a reading's *primary* label is the one with
the highest weight (the first in file order on a tie). A moment that reads AffectNet-8 class c is named:

- the first label the query asks for (``asked_labels``) that c supports, when there is one: the query's
  words choose among labels a face cannot tell apart (Joy, Love, Pride and Satisfaction all smile);
- else c's primary label.

``asked_labels`` are the labels whose ``words`` occur in the query (words are given only for labels the
AffectNet-8 interpreter cannot reach, e.g. "proud" -> Pride) or else the primary labels of the
interpreter's AffectNet-8 targets. Bundled files: ``agents/taxonomies/*.json``; ``--labels NAME|FILE``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from tools.core.schema import AFFECTNET8, first_error
from tools.signals.lexicon import names_behaviour, names_speech
from tools.signals.negation import expand_contractions, split_negated

#: The bundled taxonomies by name (``Taxonomy.name``) -> file in ``agents/taxonomies/``.
TAXONOMY_DIR = Path(__file__).with_name("taxonomies")
BUNDLED = {"AffectNet-8": "affectnet8.json", "VQAU-13": "vqau13.json", "Ekman-6": "ekman6.json",
           "MER-6": "mer6.json"}
DEFAULT = "AffectNet-8"


class TaxonomyError(ValueError):
    """A label set that does not exist or does not validate; the message is one line for users."""


class TaxonomyLabel(BaseModel):
    """One answer label.

    ``affectnet8`` maps AffectNet-8 readings to how strongly they support this label (0, 1]; ``words``
    are query words or phrases (lower case) that name it; ``basis`` cites the source of the mapping.
    """

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    affectnet8: dict[str, float] = Field(min_length=1)
    words: list[str] = Field(default_factory=list)
    basis: str = Field(min_length=1)

    @field_validator("affectnet8")
    @classmethod
    def _known_readings(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(AFFECTNET8))
        if unknown:
            raise ValueError(f"unknown AffectNet-8 reading(s) {unknown}; use {list(AFFECTNET8)}")
        if any(not 0.0 < w <= 1.0 for w in v.values()):
            raise ValueError("weights must lie in (0, 1]")
        return v


class Taxonomy(BaseModel):
    """A named answer label set and its mapping from AffectNet-8 (module doc).

    Raises (on validation): every AffectNet-8 reading must support at least one label, so that no
    moment is left without a name; label names must be unique ignoring case.
    """

    name: str = Field(min_length=1)
    description: str
    source: str
    labels: list[TaxonomyLabel] = Field(min_length=2)

    @model_validator(mode="after")
    def _complete(self) -> Taxonomy:
        names = [lab.name.lower() for lab in self.labels]
        if len(set(names)) != len(names):
            raise ValueError("label names repeat")
        orphans = [c for c in AFFECTNET8 if not any(c in lab.affectnet8 for lab in self.labels)]
        if orphans:
            raise ValueError(f"no label for the AffectNet-8 reading(s) {orphans}")
        return self

    @property
    def names(self) -> list[str]:
        """Label names in file order."""
        return [lab.name for lab in self.labels]

    def canonical(self, name: str) -> str:
        """The label called ``name`` (any case).

        Raises:
            KeyError: no such label in this taxonomy.
        """
        for lab in self.labels:
            if lab.name.lower() == name.strip().lower():
                return lab.name
        raise KeyError(f"{name!r} is not a {self.name} label ({', '.join(self.names)})")

    def primary(self, reading: str) -> str:
        """The label an AffectNet-8 ``reading`` supports most (first in file order on a tie)."""
        return max(self.labels, key=lambda lab: lab.affectnet8.get(reading, 0.0)).name

    def label_for(self, reading: str, asked: list[str] | tuple[str, ...] = ()) -> str:
        """The name of a moment that reads AffectNet-8 class ``reading``, given the labels the query asks for."""
        by_name = {lab.name: lab for lab in self.labels}
        for name in asked:
            if reading in by_name[name].affectnet8:
                return name
        return self.primary(reading)

    def named_in(self, query: str) -> list[str]:
        """Labels whose ``words`` occur in ``query`` as whole words, in the order they occur; words the query negates
        ("when is she not proud?"; ``tools.signals.negation.split_negated``, a clause mark ending a cue's scope) name
        none. Contractions are written out in both ("can't wait" matches "can not wait")."""
        words = re.findall(r"[a-z']+|[,;:.!?\u2014\u2013]", expand_contractions(query.lower()))
        text, _ = split_negated(" ".join(words))
        hits = []
        for lab in self.labels:
            at = [m.start() for w in lab.words
                  for m in re.finditer(rf"\b{re.escape(expand_contractions(w.lower()))}\b", text)]
            if at:
                hits.append((min(at), lab.name))
        return [name for _, name in sorted(hits)]

    def support(self, labels: list[str], min_weight: float = 0.5) -> list[str]:
        """AffectNet-8 readings that support any of ``labels`` with at least ``min_weight``, strongest first."""
        by_name = {lab.name: lab for lab in self.labels}
        best: dict[str, float] = {}
        for name in labels:
            for c, w in by_name[name].affectnet8.items():
                if w >= min_weight:
                    best[c] = max(best.get(c, 0.0), w)
        return sorted(best, key=lambda c: (-best[c], AFFECTNET8.index(c)))

    def asked_labels(self, query: str, targets: list[str]) -> tuple[list[str], list[str]]:
        """(labels the query asks for, AffectNet-8 targets to look for) from the query's words and the
        interpreter's AffectNet-8 ``targets`` (module doc). Labels named by their words win over the
        interpreter's similarity reading, and then set the AffectNet-8 targets."""
        named = self.named_in(query)
        if named:
            return named, self.support(named) or list(targets)
        return list(dict.fromkeys(self.primary(t) for t in targets)), list(targets)


def _read(path: Path) -> Taxonomy:
    try:
        return Taxonomy.model_validate(json.loads(path.read_text()))
    except OSError as exc:
        raise TaxonomyError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise TaxonomyError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    except ValidationError as exc:
        where, msg = first_error(exc, "file")
        raise TaxonomyError(f"{path}: {where}: {msg}") from exc


def _bundled(name: str) -> str | None:
    """The bundled label set called ``name`` in any case (``vqau-13`` -> ``VQAU-13``), else None."""
    return next((n for n in BUNDLED if n.lower() == name.lower()), None)


def resolve_labels(name_or_path: str) -> str:
    """The canonical spelling of a bundled label set's name (``vqau-13`` -> ``VQAU-13``), or a taxonomy
    file's path unchanged, after checking that it loads.

    Raises:
        TaxonomyError: as ``load_taxonomy``.
    """
    load_taxonomy(name_or_path)
    return _bundled(name_or_path) or name_or_path


@functools.lru_cache(maxsize=16)
def load_taxonomy(name_or_path: str | os.PathLike = DEFAULT) -> Taxonomy:
    """A bundled taxonomy by name (any case: ``AffectNet-8``, ``VQAU-13``, ``Ekman-6``, ``MER-6``) or a
    taxonomy JSON file (the format of ``agents/taxonomies/*.json``).

    Raises:
        TaxonomyError: neither a bundled name nor a readable, valid file.
    """
    key = str(name_or_path)
    if (name := _bundled(key)) is not None:
        return _read(TAXONOMY_DIR / BUNDLED[name])
    path = Path(key)
    if path.suffix.lower() == ".json" or path.exists():
        return _read(path)
    raise TaxonomyError(f"unknown label set {key!r}: use one of {', '.join(BUNDLED)} or a taxonomy .json file")


def named_readings(phrase: str, question: str = "", name: str = "VQAU-13") -> list[str]:
    """The AffectNet-8 reading each label of taxonomy ``name`` that ``phrase`` names by its words supports most
    (``Taxonomy.named_in``, ``Taxonomy.support``), in order of mention: "proud" -> Pride -> happiness, "relieved" ->
    Satisfaction -> happiness, "horrified" -> Horror -> fear; not neutral, the face of Anticipation and Trust, which
    says no feeling to search for ("eager", "rely on"); none where ``question`` names a behaviour or speech
    ("when does she say I love you?": its words are what is said; "point at the romantic poster"). The offline
    question reader adds to that reading's score what an emotion word adds (``agents.intent``), so such a word is
    searched for as its label's face whichever label set names the answer; the readers of negation, coordination and
    open questions do not read these words."""
    if names_behaviour(question) or names_speech(question):
        return []
    taxonomy = load_taxonomy(name)
    readings = (taxonomy.support([label])[0] for label in taxonomy.named_in(phrase))
    return list(dict.fromkeys(r for r in readings if r != "neutral"))
