"""The embedded offline reasoner: deterministic, no network, the default ``LLM``.

It answers every ``LLMTask`` from the same JSON inputs a hosted model gets, with the task's own
offline handler, written beside the task's prompt in its role module: ``agents.intent.offline_intent``
(sentence-embedding similarity to the emotion and cue descriptions), ``agents.verifier.offline_refine``
(alternative descriptions), ``agents.emotion.offline_judge`` (weighted fusion of face, voice, words
and the intent prior) and ``agents.rationale.offline_rationale`` (sentences built only from the given
evidence). Text inside the inputs is only embedded or quoted, never followed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from agents.llm import LLMTask

T = TypeVar("T", bound=BaseModel)


class OfflineReasoner:
    """The default ``LLM``: each task's offline handler, its output validated like a hosted model's."""

    name = "offline"

    def structured(self, task: LLMTask[T], inputs: dict[str, Any],
                   validate: Callable[[T], None] | None = None, images: Sequence[str] = ()) -> T:
        """``task.offline(inputs)`` as a validated ``task.schema`` instance (``images`` are not read).

        Raises:
            ValueError: the handler's answer fails ``validate`` (a defect of the handler).
        """
        out = task.schema.model_validate(task.offline(inputs).model_dump())
        if validate is not None:
            validate(out)
        return out
