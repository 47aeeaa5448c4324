"""Identity-consistent face tracks: IoU + Hungarian linking of detections within shots, and people across shots.

Linking follows the SORT family's association step (Bewley et al., 2016, "Simple Online and Realtime
Tracking") without the motion model, which low sampling rates (1 fps) make unreliable: each frame's
faces are matched to live tracks by the Hungarian algorithm (scipy's ``linear_sum_assignment``) on a
box similarity; unmatched faces start new tracks; a track ends after ``max_gap_s`` unseen or at a shot
cut (``tools.signals.shots``), so one id never spans two shots.

Tracks are then re-identified across shots (``reidentify``): tracks whose face identity descriptors
(``tools.perception.identity``) all lie within ``REID_MAX_DISTANCE`` of each other, and which are never on screen
at the same time, become one person (agglomerative clustering with complete linkage and cannot-link
constraints; Wagstaff et al., 2001, "Constrained K-means Clustering with Background Knowledge", for the
cannot-link idea). Complete linkage keeps a chain of pairwise look-alikes from merging people.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, Field

from tools.core.schema import Appearance, Box, FrameFaces

#: Largest Euclidean distance between two tracks' dlib face descriptors (every pair, complete linkage)
#: for them to be one person: the largest value on a 0.01 grid whose false-accept rate on pairs of CK+
#: dev subjects' faces with different expressions stays <= 0.1 % (``studies.reid``; results in
#: ``evals/RESULTS.md``). Stricter than dlib's LFW threshold 0.6, because a false merge makes two
#: people one.
REID_MAX_DISTANCE = 0.46


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two normalized boxes."""
    iw = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    ih = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = iw * ih
    union = a.area + b.area - inter
    return inter / union if union > 0 else 0.0


def box_similarity(a: Box, b: Box, max_center_dist: float = 1.0) -> float:
    """max(IoU, 1 - centre distance / (``max_center_dist`` x mean box width)), in [0, 1].

    The distance term keeps a face that moved further than its own size between sparse samples on
    its track; it reaches 0 at ``max_center_dist`` box widths.
    """
    width = ((a.x1 - a.x0) + (b.x1 - b.x0)) / 2
    dist = float(np.hypot((a.x0 + a.x1 - b.x0 - b.x1) / 2, (a.y0 + a.y1 - b.y0 - b.y1) / 2))
    near = 1.0 - dist / (max_center_dist * width) if width > 0 else 0.0
    return max(box_iou(a, b), near, 0.0)


class TrackSummary(BaseModel):
    """One person track: when it was seen and which face observations belong to it."""

    track_id: int
    first_s: float
    last_s: float
    shot: int = Field(description="index of the shot (between cuts) the track lies in")
    observation_ids: list[str]
    mean_box: Box
    thumbnail: str | None = Field(None, description="path of a face crop, relative to the index dir")
    person: int | None = Field(None, description="person id across shots (``reidentify``); tracks of one "
                               "person share it; None: not re-identified")
    appearance: Appearance | None = Field(None, description="annotated gender and age group read from the "
                                          "track's identity descriptors (``tools.perception.appearance``); None: no face "
                                          "large enough was described")

    @property
    def person_id(self) -> int:
        """The id that names this track's person: ``person``, or the track id without re-identification."""
        return self.person if self.person is not None else self.track_id


@dataclass
class _Live:
    track_id: int
    box: Box
    last_t: float
    obs: list = field(default_factory=list)


def link_tracks(frames: list[FrameFaces], cuts: list[float], min_similarity: float = 0.3,
                max_gap_s: float = 2.5) -> tuple[list[TrackSummary], dict[str, int]]:
    """Link the faces of ``frames`` (time order) into tracks.

    Args:
        frames: face observations per sampled frame.
        cuts: times (s) where a new shot starts; tracks never cross them.
        min_similarity: ``box_similarity`` below which a face cannot continue a track.
        max_gap_s: a track unseen for longer ends.

    Returns:
        ``(tracks, observation id -> track id)``; ids count from 0 in order of first appearance.
    """
    from scipy.optimize import linear_sum_assignment

    live: list[_Live] = []
    done: list[tuple[_Live, int]] = []
    shot, next_id = 0, 0
    cut_iter = iter(sorted(cuts))
    next_cut = next(cut_iter, None)
    for fr in frames:
        while next_cut is not None and fr.t >= next_cut:
            done += [(tr, shot) for tr in live]
            live, shot = [], shot + 1
            next_cut = next(cut_iter, None)
        for tr in [tr for tr in live if fr.t - tr.last_t > max_gap_s]:
            live.remove(tr)
            done.append((tr, shot))
        matched: set[int] = set()
        if live and fr.faces:
            sim = np.array([[box_similarity(tr.box, f.box) for f in fr.faces] for tr in live])
            rows, cols = linear_sum_assignment(-sim)
            for r, c in zip(rows, cols, strict=True):
                if sim[r, c] >= min_similarity:
                    live[r].box, live[r].last_t = fr.faces[c].box, fr.t
                    live[r].obs.append(fr.faces[c])
                    matched.add(c)
        for c, face in enumerate(fr.faces):
            if c not in matched:
                live.append(_Live(next_id, face.box, fr.t, [face]))
                next_id += 1
    done += [(tr, shot) for tr in live]
    tracks, assign = [], {}
    for tr, s in sorted(done, key=lambda x: x[0].track_id):
        boxes = np.array([[o.box.x0, o.box.y0, o.box.x1, o.box.y1] for o in tr.obs]).mean(axis=0)
        tracks.append(TrackSummary(track_id=tr.track_id, first_s=tr.obs[0].t, last_s=tr.obs[-1].t, shot=s,
                                   observation_ids=[o.id for o in tr.obs],
                                   mean_box=Box(x0=boxes[0], y0=boxes[1], x1=boxes[2], y1=boxes[3])))
        assign.update({o.id: tr.track_id for o in tr.obs})
    return tracks, assign


def reidentify(tracks: list[TrackSummary], descriptors: dict[int, np.ndarray],
               max_distance: float = REID_MAX_DISTANCE) -> dict[int, int]:
    """Person id per track id (see the module doc).

    Args:
        tracks: the tracks of one video.
        descriptors: track id -> identity descriptor (D,) (``tools.perception.identity``); a track without one
            stays a person of its own.
        max_distance: largest descriptor distance, over every pair of tracks of one person.

    Returns:
        track id -> person id; person ids count from 0 in order of first appearance.
    """
    n = len(tracks)
    vecs = [descriptors.get(t.track_id) for t in tracks]
    dist = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = tracks[i], tracks[j]
            overlap = a.first_s <= b.last_s and b.first_s <= a.last_s  # on screen together: two people
            if vecs[i] is not None and vecs[j] is not None and not overlap:
                dist[i, j] = dist[j, i] = float(np.linalg.norm(vecs[i] - vecs[j]))
    members = {i: [i] for i in range(n)}
    while len(members) > 1:
        k = int(np.argmin(dist))
        x, y = divmod(k, n)
        if not dist[x, y] <= max_distance:
            break
        # complete linkage: the merged cluster is as far from each other cluster as its farther half
        # (inf, a cannot-link, stays inf)
        dist[x] = dist[:, x] = np.maximum(dist[x], dist[y])
        dist[x, x] = np.inf
        dist[y] = dist[:, y] = np.inf
        members[x] += members.pop(y)
    clusters = sorted(members.values(), key=lambda c: min((tracks[i].first_s, tracks[i].track_id) for i in c))
    return {tracks[i].track_id: person for person, c in enumerate(clusters) for i in c}
