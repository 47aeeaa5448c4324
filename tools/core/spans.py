"""Records with a start and an end in seconds (clips, utterances) looked up by time (``SpansByStart``)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar


class _Timed(Protocol):
    start_s: float
    end_s: float


T = TypeVar("T", bound=_Timed)


class SpansByStart(Generic[T]):
    """Records with ``start_s`` and ``end_s`` (seconds: clips, utterances) looked up by time, for a caller that asks of
    many spans: sorted by start once (ties keep their order), a span's records found by binary search over the starts,
    reaching back by the longest record's length, instead of a pass over every record per span."""

    def __init__(self, records: Iterable[T]) -> None:
        self.records: list[T] = sorted(records, key=lambda r: r.start_s)
        self._starts = [r.start_s for r in self.records]
        self._longest = max((r.end_s - r.start_s for r in self.records), default=0.0)

    def near(self, start_s: float, end_s: float, include_end: bool = False) -> list[T]:
        """Every record that can meet [start_s, end_s), in start order: those that start before ``end_s`` (at or before
        it with ``include_end``) and at most the longest record's length before ``start_s``; some may end before
        ``start_s``."""
        lo = bisect.bisect_left(self._starts, start_s - self._longest)
        return self.records[lo:(bisect.bisect_right if include_end else bisect.bisect_left)(self._starts, end_s)]

    def overlapping(self, start_s: float, end_s: float, include_end: bool = False) -> list[T]:
        """The records that meet [start_s, end_s), in start order: they start before ``end_s`` (at or before it with
        ``include_end``, so a 0 s span or a time, ``start_s == end_s``, finds the records holding it) and end after
        ``start_s``."""
        return [r for r in self.near(start_s, end_s, include_end) if r.end_s > start_s]
