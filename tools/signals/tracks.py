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

An editor's continuity counts as evidence too: a track whose first face sits where a face was on the last
sampled frame before the cut (``CONTINUITY_MIN_IOU``) ``continues`` that track, and the pair joins up to a looser
bound (``REID_CONTINUITY_DISTANCE``) instead of the stricter ``REID_MAX_DISTANCE``; every other pair
of the merged person still has to pass the strict one (complete linkage).
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
#: people one. On recorded video it is looser: 4.1 % and 31.6 % of the pairs of different people of two groups of
#: Javanese talking heads lie within it (``studies.reid_recorded``, section 171; the same rule there gives 0.39).
REID_MAX_DISTANCE = 0.46

#: Largest descriptor distance for a pair of tracks that continue each other in place across a cut: the
#: largest value on the same grid whose false-accept rate on the CK+ dev pairs stays <= 1 %, ten times the
#: budget of ``REID_MAX_DISTANCE``, because the face's place and size across the cut are a second cue
#: (``studies.reid``: dev TAR 0.923 / FAR 0.83 %, test 0.942 / 0.87 %; dlib's LFW threshold 0.6 would
#: accept 4.3 % of different people).
REID_CONTINUITY_DISTANCE = 0.54

#: Smallest IoU between a face on the last sampled frame before a cut and one on the first frame after it
#: for the second to continue the first in place.
CONTINUITY_MIN_IOU = 0.5


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
    continues: int | None = Field(None, description="id of the track of the previous shot whose last face sat at "
                                  "this track's first face's place (IoU >= ``CONTINUITY_MIN_IOU``) on the "
                                  "frames either side of the cut; None: none")
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
    shot, next_id, prev_t = 0, 0, None
    continues: dict[int, int] = {}
    cut_iter = iter(sorted(cuts))
    next_cut = next(cut_iter, None)
    for fr in frames:
        at_cut: list[_Live] = []
        while next_cut is not None and fr.t >= next_cut:
            at_cut = at_cut or [tr for tr in live if tr.last_t == prev_t]
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
        continues.update(_continuations(at_cut, live))
        prev_t = fr.t
    done += [(tr, shot) for tr in live]
    tracks, assign = [], {}
    for tr, s in sorted(done, key=lambda x: x[0].track_id):
        boxes = np.array([[o.box.x0, o.box.y0, o.box.x1, o.box.y1] for o in tr.obs]).mean(axis=0)
        tracks.append(TrackSummary(track_id=tr.track_id, first_s=tr.obs[0].t, last_s=tr.obs[-1].t, shot=s,
                                   observation_ids=[o.id for o in tr.obs], continues=continues.get(tr.track_id),
                                   mean_box=Box(x0=boxes[0], y0=boxes[1], x1=boxes[2], y1=boxes[3])))
        assign.update({o.id: tr.track_id for o in tr.obs})
    return tracks, assign


def _continuations(before: list[_Live], after: list[_Live]) -> dict[int, int]:
    """Track id after a cut -> the track id before it whose last box it overlaps by IoU >= ``CONTINUITY_MIN_IOU``
    (one-to-one, Hungarian on IoU); ``before`` are the tracks seen on the last frame before the cut, ``after``
    those on the first frame after it."""
    from scipy.optimize import linear_sum_assignment

    if not before or not after:
        return {}
    iou = np.array([[box_iou(a.box, b.box) for b in after] for a in before])
    rows, cols = linear_sum_assignment(-iou)
    return {after[c].track_id: before[r].track_id for r, c in zip(rows, cols, strict=True)
            if iou[r, c] >= CONTINUITY_MIN_IOU}


def reidentify(tracks: list[TrackSummary], descriptors: dict[int, np.ndarray],
               max_distance: float = REID_MAX_DISTANCE,
               continuity_distance: float = REID_CONTINUITY_DISTANCE) -> dict[int, int]:
    """Person id per track id (see the module doc).

    Args:
        tracks: the tracks of one video.
        descriptors: track id -> identity descriptor (D,) (``tools.perception.identity``); a track without one
            stays a person of its own.
        max_distance: largest descriptor distance, over every pair of tracks of one person.
        continuity_distance: the same for a pair where one track ``continues`` the other across a cut (its
            distance is scaled by ``max_distance / continuity_distance`` before the clustering).

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
    row = {t.track_id: i for i, t in enumerate(tracks)}
    for j, t in enumerate(tracks):
        if t.continues in row:
            i = row[t.continues]
            dist[i, j] = dist[j, i] = dist[i, j] * max_distance / continuity_distance
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
