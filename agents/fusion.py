"""The offline judge's late fusion: its weights, its confidence calibration, the files they are read from, and the
fusion of one candidate's observations with them.

``agents.emotion.offline_judge`` fuses the face, voice, words and the intent prior with a ``Fusion`` (``fuse``,
``judged_label``); the fitted one (``FUSION_FILE``) comes from ``studies.fit_fusion`` (``agents/FUSION.md``). The
settings check a ``--fusion`` file with ``load_fusion`` before any work (``agents.state.RunSettings``).
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, ValidationError, field_validator

from agents.observations import Observations
from tools.core.schema import AFFECTNET8

#: The fitted fusion of the offline judge (``studies.fit_fusion`` on the dev split's fusion fold; ``agents/FUSION.md``).
FUSION_FILE = Path(__file__).with_name("fusion.json")


class Fusion(BaseModel):
    """Weights of the offline judge's late fusion and the calibration of its confidence.

    The fused distribution is ``sum_m w_m p_m / sum_m w_m`` over the modalities m that observed
    something (facial expression mean, voice emotion, speech-content emotion, and the intent prior: 1 on
    the asked emotions); its top label is the judgement. The confidence is Platt scaling of the top
    probability x (Platt 1999) with an intercept of its own for each judged label: ``1 / (1 + exp(-(a x + b +
    c_label)))`` (``calibration`` = (a, b), ``label_offsets`` = c by AffectNet-8 label, 0 for a label it lacks), an
    estimate of P(label right) fitted on judged dev candidates (``studies.label_calibration``: a surprise read on a
    recorded talking face is right less often than an anger read at the same x, ``evals/RESULTS.md`` section 163);
    without ``calibration`` it is x itself. A label that the faces read against their person's usual reading name and
    the faces as read do not (``judged_label``, ``departed``) takes a Platt scaling of its own, ``departed_calibration``
    (section 167): that label's probability says little of whether it is right.
    """

    visual: float = Field(ge=0.0)
    vocal: float = Field(ge=0.0)
    verbal: float = Field(ge=0.0)
    prior: float = Field(ge=0.0)
    calibration: tuple[float, float] | None = None
    vocal_by_reader: dict[str, float] = Field(default_factory=dict, description=(
        "the vocal weight for a voice reader other than the one ``vocal`` was fitted for, by its backend name "
        "(tools.perception.voice_emotion.VOICE_EMOTION): whisper8's was chosen on recorded dev clips "
        "(evals/RESULTS.md section 77)"))
    label_offsets: dict[str, float] = Field(default_factory=dict, description=(
        "the calibration's intercept added for each judged AffectNet-8 label (studies.label_calibration; "
        "evals/RESULTS.md section 163); a label not listed adds 0"))
    departed_calibration: tuple[float, float] | None = Field(None, description=(
        "Platt scaling (a, b) of the confidence of a label the departure named (judged_label; the faces as read name "
        "another): 1 / (1 + exp(-(a x + b))), no label offset; fitted on recorded development candidates so named "
        "(studies.departed_calibration fit; evals/RESULTS.md section 167); None: the calibration above"))
    source: str = ""

    @field_validator("label_offsets")
    @classmethod
    def _known_labels(cls, offsets: dict[str, float]) -> dict[str, float]:
        """A label offset names an AffectNet-8 label (a misspelt one would silently add nothing)."""
        if unknown := sorted(set(offsets) - set(AFFECTNET8)):
            raise ValueError(f"label_offsets names {', '.join(unknown)}, not AffectNet-8 labels "
                             f"({', '.join(AFFECTNET8)})")
        return offsets

    def for_voice(self, reader: str | None) -> Fusion:
        """This fusion for the voice read by the backend ``reader`` (``IndexConfig.voice_backend``): its own vocal
        weight where ``vocal_by_reader`` names it, else this fusion unchanged."""
        if reader not in self.vocal_by_reader:
            return self
        return self.model_copy(update={"vocal": self.vocal_by_reader[reader]})

    def confidence(self, top_p: float, label: str | None = None, departed: bool = False) -> float:
        """The calibrated confidence in [0, 1] of a judgement of ``label`` (an AffectNet-8 label; None: no label's
        offset) whose fused top probability is ``top_p``; ``departed``: the departure named the label
        (``departed``), which takes ``departed_calibration`` where the fusion has one."""
        if departed and self.departed_calibration is not None:
            a, b = self.departed_calibration
            return 1.0 / (1.0 + math.exp(-(a * top_p + b)))
        if self.calibration is None:
            return float(top_p)
        a, b = self.calibration
        return 1.0 / (1.0 + math.exp(-(a * top_p + b + self.label_offsets.get(label, 0.0))))


#: The weights set by hand before any fit (face 0.5, voice 0.2, words 0.15, prior 0.15; no calibration):
#: the ablation baseline of evals/RESULTS.md.
HAND_FUSION = Fusion(visual=0.5, vocal=0.2, verbal=0.15, prior=0.15, source="set by hand, checked on the dev split")


@functools.cache
def load_fusion(path: Path = FUSION_FILE) -> Fusion:
    """The ``Fusion`` stored at ``path`` (JSON of its fields).

    Raises:
        OSError: the file cannot be read.
        pydantic.ValidationError: it is not a fusion.
    """
    return Fusion.model_validate(json.loads(Path(path).read_text()))


def read_fusion(path: Path | str) -> Fusion:
    """``load_fusion(path)``, each way it can fail said in one line.

    Raises:
        ValueError: the file is missing, unreadable or not JSON, or is not a fusion (the first field at fault named).
    """
    if not Path(path).is_file():
        raise ValueError(f"{str(path)!r}: no such fusion file")
    try:
        return load_fusion(Path(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{str(path)!r}: not a readable JSON file ({type(exc).__name__})") from None
    except ValidationError as exc:
        where = ".".join(map(str, exc.errors()[0]["loc"])) or "the file"
        raise ValueError(f"{str(path)!r}: not a fusion file ({where}: {exc.errors()[0]['msg']})") from None


def resolve_fusion(name: str) -> Fusion:
    """``fitted`` -> ``load_fusion()``; ``hand`` -> ``HAND_FUSION``; anything else -> ``load_fusion(name)``."""
    return {"fitted": load_fusion, "hand": lambda: HAND_FUSION}.get(name, lambda: load_fusion(Path(name)))()


def observed(inputs: dict[str, Any]) -> Observations:
    """The judge inputs' observations (``judge_inputs``: the JSON ``Observations.judge_view`` gave) as typed
    records again; a modality missing from ``inputs`` is empty.

    Raises:
        pydantic.ValidationError: a modality is not shaped as ``agents.observations.Observations`` says.
    """
    return Observations.model_validate({k: inputs.get(k) or {} for k in Observations.model_fields})


def vector(dist: dict[str, float] | None) -> np.ndarray:
    """An AffectNet-8 distribution as a vector in ``AFFECTNET8`` order (absent labels 0)."""
    return np.array([(dist or {}).get(k, 0.0) for k in AFFECTNET8])


def seen_faces(obs: Observations, targets: list[str], named: bool = False) -> dict[str, float]:
    """The facial expression the judgement reads: for a question about behaviour whose gesture or look sets the span
    (``Observations.about_behaviour``), the faces around it (``BehaviourObservations.expression_mean``) where any
    was seen; else the candidate's (``VisualObservations.expression_mean``), or with ``named`` the faces as the
    label names them: against each one's person's usual reading where the verifier gave that
    (``VisualObservations.departure_mean``)."""
    around = obs.behaviour.expression_mean if obs.about_behaviour(targets) else {}
    return around or (named and obs.visual.departure_mean) or obs.visual.expression_mean


def fuse(inputs: dict[str, Any], fusion: Fusion, named: bool = False, obs: Observations | None = None) -> np.ndarray:
    """The fused AffectNet-8 distribution (shape (8,), sums to 1) of one candidate's judge inputs; the faces as
    ``seen_faces`` reads them (with ``named``: as the label names them); ``obs``: the inputs' observations where the
    caller has them (``observed(inputs)``)."""
    targets = inputs.get("target_emotions") or []
    obs = obs or observed(inputs)
    prior = np.array([1.0 if k in targets else 0.0 for k in AFFECTNET8])
    parts = [(fusion.visual, vector(seen_faces(obs, targets, named))),
             (fusion.vocal, vector(obs.vocal.voice_distribution)),
             (fusion.verbal, vector(obs.verbal.emotion_distribution)), (fusion.prior, prior)]
    parts = [(w, x) for w, x in parts if w > 0 and x.sum() > 0]
    if not parts:
        return np.eye(len(AFFECTNET8))[0]
    return sum(w * x / x.sum() for w, x in parts) / sum(w for w, _ in parts)


def judged_label(inputs: dict[str, Any], fusion: Fusion,
                 obs: Observations | None = None) -> tuple[np.ndarray, str, float]:
    """The fused distribution of one candidate's judge inputs with the faces as read (shape (8,): what the moment is
    ranked by), the label judged, and the probability its confidence is calibrated from. The label is the top of the
    fusion with the faces named against each person's usual reading where the verifier gave that
    (``VisualObservations.departure_mean``, ``evals/RESULTS.md`` section 166), else of the fusion as read; its
    probability is the higher of the label's in the two (a label read as usual keeps the confidence it had); ``obs``:
    the inputs' observations where the caller has them (``observed(inputs)``)."""
    obs = obs or observed(inputs)
    fused = fuse(inputs, fusion, obs=obs)
    named = fuse(inputs, fusion, named=True, obs=obs) if obs.visual.departure_mean else fused
    i = int(named.argmax())
    return fused, AFFECTNET8[i], float(max(fused[i], named[i]))


def departed(fused: np.ndarray, label: str) -> bool:
    """Whether the departure named ``label``: the fusion with the faces as read (``fused``, shape (8,), AffectNet-8
    order; ``judged_label``'s first) has another top label. Such a label is right more often, on average, than its
    probability says (``Fusion.departed_calibration``, ``evals/RESULTS.md`` section 167)."""
    return AFFECTNET8[int(fused.argmax())] != label
