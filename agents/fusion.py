"""The offline judge's late fusion: its weights, its confidence calibration, and the files they are read from.

``agents.emotion.offline_judge`` fuses the face, voice, words and the intent prior with a ``Fusion``; the fitted one
(``FUSION_FILE``) comes from ``studies.fit_fusion`` (``agents/FUSION.md``). The settings check a ``--fusion`` file
with ``load_fusion`` before any work (``agents.state.RunSettings``).
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, field_validator

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
    without ``calibration`` it is x itself.
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

    def confidence(self, top_p: float, label: str | None = None) -> float:
        """The calibrated confidence in [0, 1] of a judgement of ``label`` (an AffectNet-8 label; None: no label's
        offset) whose fused top probability is ``top_p``."""
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
