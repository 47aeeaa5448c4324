"""Moments a person would mark: shot boundaries at frame accuracy, and no moment under a second."""

from __future__ import annotations

import pytest

from agents.moments import MIN_MOMENT_S, at_least_a_moment, shot_around, snap_to_cuts
from tests.conftest import SAMPLE, shared_media

#: The sample's hard cuts, read by looking at its frames (each time is the first frame of the new shot, on
#: the file's clock: its video starts 0.844 s after its audio; the pianist's long shot -> the performer's
#: profile at 1.511 s, -> the performer facing the camera at 3.580 s, -> the audience at 7.884 s; 29.97 fps).
SAMPLE_HARD_CUTS = [1.511, 3.580, 7.884]
FRAME_S = 1 / 29.97
#: A worked example for the pure functions: the frames where the sample's shots start.
CUTS = [0.667, 2.736, 7.04]


def test_the_index_finds_the_sample_cuts_on_their_first_frames(cache_root):
    """The sample's three hard cuts (read by eye), found by the index's visual pass on the first frame of each
    new shot (the issue's bar is 0.2 s), and no other."""
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    assert open_index(SAMPLE, IndexConfig(), cache_root).cuts == pytest.approx(SAMPLE_HARD_CUTS, abs=FRAME_S / 2)


def test_the_index_lays_its_clips_out_in_shots(cache_root):
    """``tools.signals.shots.shot_parts`` on the worked example (a part under a second stays with its neighbour), and
    the sample's index: every clip lies inside one of its shots, a shot shorter than 5 s is one clip from its cut to
    the next, the clips cover the video, and each clip's voice is the reading of its own speech
    (``indexing.clips.clip_voice``)."""
    from indexing.build import open_index
    from indexing.clips import clip_voice
    from memory.index_config import IndexConfig
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import load_voice_emotion
    from tools.signals.shots import shot_parts

    assert shot_parts(CUTS, 0.0, 4.0) == [(0.0, 2.736), (2.736, 4.0)]  # 0.667 would leave a part of 0.667 s
    assert shot_parts(CUTS, 3.0, 7.0) == [(3.0, 7.0)]
    index = open_index(SAMPLE, IndexConfig(), cache_root)
    shots = shot_parts(index.cuts, 0.0, round(index.info.duration_s, 3))  # clip edges are kept to the millisecond
    assert len(shots) == len(SAMPLE_HARD_CUTS) + 1
    in_shot = [[c for c in index.clips if a <= c.start_s and c.end_s <= b] for a, b in shots]
    assert sum(map(len, in_shot)) == len(index.clips)
    for (a, b), clips in zip(shots, in_shot, strict=True):
        assert min(c.start_s for c in clips) == a and max(c.end_s for c in clips) == b
        if b - a < 5.0:
            assert [(c.start_s, c.end_s) for c in clips] == [(a, b)]
    audio, model = load_audio(SAMPLE, 16_000), load_voice_emotion(index.config.voice_backend)
    spoken = [c for c in index.clips if c.voice_emotion]
    assert spoken
    for c in spoken:
        assert c.voice_emotion == clip_voice(model, audio, index.transcript, c.start_s, c.end_s)


def test_the_clips_say_the_words_whose_midpoints_they_hold(cache_root):
    """Each clip of the sample's index says the words whose midpoint lies in its window, in the order spoken, as a
    scan of every word finds them; ``tools.core.schema.WordTimes`` answers as ``Transcript.words_between`` for spans
    that start or end on a word's midpoint (inside the span at its start, outside at its end) or edge."""
    from indexing.build import open_index
    from memory.index_config import IndexConfig
    from tools.core.schema import WordTimes

    transcript = open_index(SAMPLE, IndexConfig(), cache_root).transcript
    words = [w for seg in transcript.segments for w in seg.words]
    assert len(words) > 20
    for c in open_index(SAMPLE, IndexConfig(), cache_root).clips:
        said = [w.text for w in words if c.start_s <= (w.start_s + w.end_s) / 2 < c.end_s]
        assert c.speech == " ".join(said)
    times = WordTimes(transcript)
    marks = sorted({t for w in words for t in (w.start_s, (w.start_s + w.end_s) / 2, w.end_s)})
    for a, b in zip(marks, marks[3:]):
        assert times.words_between(a, b) == transcript.words_between(a, b)
    first = (words[0].start_s + words[0].end_s) / 2
    assert times.words_between(first, first + 1e-9) == [words[0]] and times.words_between(0.0, first) == []


def test_a_recorded_shot_without_cuts_has_none():
    """One recorded shot of a woman talking to the camera (head and lips move every frame): no cut."""
    from tools.core.frames import iter_frames
    from tools.signals.shots import ChangeTrace, hard_cuts

    trace = ChangeTrace()
    for _ in iter_frames(shared_media("WDA_KatieHill_000.mp4"), 1.0, on_decoded=trace.add):  # 8 s, 25 fps
        pass
    assert len(trace.changes) > 150  # every frame was measured, not the 1 fps samples
    assert hard_cuts(trace.times, trace.changes) == []


def test_a_cut_is_a_spike_against_the_frames_around_it():
    """The rule of ``tools.signals.shots.hard_cuts`` on made-up changes at 25 fps: a spike of 20 stands out against motion
    of 3 (20 >= 4 x (3 + 1)) but not against motion of 5; a spike under ``MIN_CHANGE`` is no cut however calm the
    shot; two equal frames of one spike make one cut, on the first."""
    from tools.signals.shots import MIN_CHANGE, hard_cuts

    times = [k / 25 for k in range(50)]

    def spike(level: float, base: float, width: int = 1) -> list[float]:
        return [level if 25 <= k < 25 + width else base for k in range(50)]

    assert hard_cuts(times, spike(20.0, 3.0)) == [1.0]
    assert hard_cuts(times, spike(20.0, 5.0)) == []
    assert hard_cuts(times, spike(MIN_CHANGE - 0.5, 0.0)) == []
    assert hard_cuts(times, spike(20.0, 0.5, width=2)) == [1.0]
    assert hard_cuts([], []) == []


def test_the_index_chunks_measure_every_frame_once():
    """The visual pass decodes the video in chunks (``indexing.visual.chunk_frames``, each seeking to a keyframe
    before its start): over 3 s chunks of the sample (its video starts 0.844 s in, off the 1 fps grid of the
    chunk starts) the luma trace holds exactly the frames and changes of one pass, so a cut between two chunks is
    found on its frame."""
    from indexing.visual import chunk_frames
    from tools.core.frames import iter_frames
    from tools.core.media import probe
    from tools.signals.shots import ChangeTrace

    one = ChangeTrace()
    for _ in iter_frames(SAMPLE, 1.0, on_decoded=one.add):
        pass
    info, times, changes, last = probe(SAMPLE), [], [], ChangeTrace()
    for start in (0.0, 3.0, 6.0, 9.0):
        trace = ChangeTrace(last.last_t, last.prev)
        for _ in chunk_frames(info, 1.0, start, start + 3.0 if start < 9.0 else None, trace):
            pass
        times, changes, last = times + trace.times, changes + trace.changes, trace
    assert times == one.times and changes == one.changes and len(times) > 250


def test_span_edges_move_onto_a_nearby_shot_start():
    assert snap_to_cuts(2.9, 7.3, CUTS, 2.0, 10.0) == (2.736, 7.04)
    assert snap_to_cuts(4.0, 6.0, CUTS, 2.0, 10.0) == (4.0, 6.0)  # none near: kept
    assert snap_to_cuts(6.0, 7.26, CUTS, 5.4, 8.6) == (6.0, 7.04)  # an edge just past a shot start moves onto it
    assert snap_to_cuts(6.0, 7.26, CUTS, 5.4, 7.0) == (6.0, 7.26)  # a cut outside [lo, hi] is not used
    assert snap_to_cuts(2.5, 2.8, CUTS, 2.0, 10.0) == (2.5, 2.8)  # both edges onto one cut: kept


def test_a_short_span_grows_to_a_second_inside_its_shot_and_the_video():
    assert at_least_a_moment(4.4, 4.6, (2.736, 7.04), 9.17) == (4.0, 5.0)  # about its middle
    assert at_least_a_moment(2.8, 2.9, (2.736, 7.04), 9.17) == (2.736, 3.736)  # not before its shot's start
    assert at_least_a_moment(9.0, 9.1, (7.04, 9.17), 9.17) == (8.17, 9.17)  # not past the video's end
    # a shot shorter than a second does not hold it: the moment reaches into the next shot
    assert at_least_a_moment(0.1, 0.2, (0.0, 0.667), 9.17) == (0.0, 1.0)
    assert at_least_a_moment(0.2, 0.3, (0.0, 0.667), 0.5) == (0.0, 0.5)  # a half-second video: all of it
    assert at_least_a_moment(3.0, 5.5, (2.736, 7.04), 9.17) == (3.0, 5.5)  # long enough: unchanged
    assert all(e - s >= MIN_MOMENT_S for s, e in [at_least_a_moment(t, t + 0.05, (0.0, 9.17), 9.17)
                                                   for t in (0.0, 3.3, 9.1)])


def test_the_shot_around_a_time_is_bounded_by_the_cuts():
    assert shot_around(5.0, CUTS, 9.17) == (2.736, 7.04)
    assert shot_around(0.3, CUTS, 9.17) == (0.0, 0.667)
    assert shot_around(7.5, CUTS, 9.17) == (7.04, 9.17)
    assert shot_around(2.736, CUTS, 9.17) == (2.736, 7.04)  # a shot starts on its cut


def test_a_judged_tenth_of_a_second_becomes_a_moment_of_a_second_on_the_shot_start():
    """The reasoner's drafts: a 0.1 s span judged next to a cut lands on the shot start and lasts a second (on
    recorded video the top moments had been 0.1 and 0.2 s long)."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, VerifiedCandidate

    cand = VerifiedCandidate(clip_id="c", start_s=2.736, end_s=5.0, retrieval_score=0.5, source="clips",
                             support=0.8, accepted=True)
    judged = EmotionJudgement(emotion="happiness", confidence=0.6, start_s=3.003, end_s=3.1, target_probability=0.6)
    drafts, _ = draft_moments([cand], ["happiness"], CUTS, 5, 0.0, lambda c: judged, duration_s=9.17)
    assert [(d.start_s, d.end_s) for d in drafts] == [(2.736, 3.736)]


def test_the_part_of_the_video_a_question_names_bounds_each_moment_that_overlaps_it():
    """A judged span of 2-8 s in a question about 5-9 s becomes 5-8 s; one the part cuts to under a second still
    lasts a second; with no part named the span is as judged."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, VerifiedCandidate

    def cand(clip: str, start: float, end: float) -> VerifiedCandidate:
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=end, retrieval_score=0.5, source="clips",
                                 support=0.8, accepted=True)

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        return EmotionJudgement(emotion="happiness", confidence=0.6, start_s=c.start_s, end_s=c.end_s,
                                target_probability=0.6)

    drafts, _ = draft_moments([cand("a", 2.0, 8.0)], ["happiness"], [], 5, 0.0, judge, duration_s=20.0,
                              window=(5.0, 9.0))
    assert [(d.start_s, d.end_s) for d in drafts] == [(5.0, 8.0)]
    short, _ = draft_moments([cand("b", 2.0, 5.3)], ["happiness"], [], 5, 0.0, judge, duration_s=20.0,
                             window=(5.0, 9.0))
    assert [(d.start_s, d.end_s) for d in short] == [(4.65, 5.65)]  # 1 s about the part's 0.3 s
    whole, _ = draft_moments([cand("c", 2.0, 8.0)], ["happiness"], [], 5, 0.0, judge, duration_s=20.0)
    assert [(d.start_s, d.end_s) for d in whole] == [(2.0, 8.0)]


def test_a_moment_read_on_the_index_frames_only_ranks_after_those_read_at_the_verifier_rate():
    """A candidate the verifier accepted on its 1 fps reading alone (``VerifiedCandidate.coarse``: beyond the round's
    dense reading) may read stronger there than a candidate read at 4 fps; its moment still comes after, and fills the
    answer only where room is left. Among the moments read alike, the score ranks."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, VerifiedCandidate

    def cand(clip: str, start: float, support: float, coarse: bool) -> VerifiedCandidate:
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=start + 1.0, retrieval_score=0.5, source="clips",
                                 support=support, accepted=True, coarse=coarse)

    cands = [cand("a", 0.0, 0.9, True), cand("b", 4.0, 0.5, False), cand("c", 6.0, 0.6, False)]

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        return EmotionJudgement(emotion="happiness", confidence=0.8, start_s=c.start_s, end_s=c.end_s,
                                target_probability=0.8)

    drafts, _ = draft_moments(cands, ["happiness"], [], 5, 0.0, judge, duration_s=9.17)
    assert [(d.start_s, d.coarse) for d in drafts] == [(6.0, False), (4.0, False), (0.0, True)]
    top, _ = draft_moments(cands, ["happiness"], [], 2, 0.0, judge, duration_s=9.17)
    assert [d.start_s for d in top] == [6.0, 4.0]


def test_cuts_made_at_known_frames_are_found_on_those_frames(tmp_path):
    """A video cut at frames chosen here (30 fps: frame 73 = 2.433 s, frame 131 = 4.367 s, neither on the 1 fps
    grid), made from the sample's performer and audience shots: both cuts found on the frame where they were
    made, as the visual pass decodes for its 1 fps samples."""
    from tools.core.frames import iter_frames
    from tools.core.video_out import VideoWriter
    from tools.signals.shots import ChangeTrace, hard_cuts

    performer = [f for _, f in iter_frames(SAMPLE, 30.0, 3.65, 7.75)]
    audience = [f for _, f in iter_frames(SAMPLE, 30.0, 7.95, 9.95)]
    shots = [performer[:73], audience[:58], performer[73:122]]  # cuts after 73 and 131 frames; 180 frames
    assert [len(s) for s in shots] == [73, 58, 49]
    video = tmp_path / "cuts.mp4"
    with VideoWriter(video, (640, 360), fps=30) as out:
        for frame in (f for shot in shots for f in shot):
            out.add_frame(frame)
    trace = ChangeTrace()
    for _ in iter_frames(video, 1.0, on_decoded=trace.add):
        pass
    assert hard_cuts(trace.times, trace.changes) == pytest.approx([73 / 30, 131 / 30], abs=1 / 60)


def test_a_feeling_judged_while_someone_speaks_spans_their_utterance_inside_its_shot():
    """On the recorded CREMA-D dev videos the top moment was often a second of a 2.5 s spoken sentence whose whole
    shot the annotation marks (evals/RESULTS.md section 39)."""
    from agents.moments import over_the_utterance

    shot = (2.736, 7.04)
    said = [(2.9, 6.5, 4), (6.6, 8.0, 5), (1.0, 2.0, None)]
    assert over_the_utterance(3.5, 4.2, said, {4}, shot) == (2.9, 6.5)
    assert over_the_utterance(3.5, 4.2, said, set(), shot) == (2.9, 6.5)  # no face named: any speaker
    assert over_the_utterance(6.7, 7.0, said, {4}, shot) == (6.7, 7.0)  # only person 5 speaks there
    assert over_the_utterance(6.7, 7.0, said, {5}, shot) == (6.6, 7.04)  # cut at the shot's end
    assert over_the_utterance(2.0, 7.5, said, {4}, (0.0, 9.0)) == (2.0, 7.5)  # a longer span stays as it is
    assert over_the_utterance(8.5, 9.0, said, {4}, (7.04, 9.17)) == (8.5, 9.0)  # nothing said there


def test_only_a_feeling_questions_span_grows_over_the_utterance():
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, Evidence, VerifiedCandidate

    face = Evidence(id="c.v0", modality="visual", tool="faces", start_s=3.5, end_s=3.75, person=4, detail="x", ref="")
    cand = VerifiedCandidate(clip_id="c", start_s=2.736, end_s=5.0, retrieval_score=0.5, source="clips",
                             support=0.8, accepted=True, evidence=[face])
    judged = EmotionJudgement(emotion="happiness", confidence=0.6, start_s=3.5, end_s=4.6, target_probability=0.6)
    said = [(3.4, 6.2, 4)]
    asked, _ = draft_moments([cand], ["happiness"], CUTS, 5, 0.0, lambda c: judged, duration_s=9.17, utterances=said)
    plain, _ = draft_moments([cand], [], CUTS, 5, 0.0, lambda c: judged, duration_s=9.17, utterances=said)
    assert [(d.start_s, d.end_s) for d in asked] == [(3.4, 6.2)]
    assert [(d.start_s, d.end_s) for d in plain] == [(3.5, 4.6)]
    judged = judged.model_copy(update={"target_probability": None})  # "how does she feel?": a feeling, none named
    feeling, _ = draft_moments([cand], [], CUTS, 5, 0.0, lambda c: judged, duration_s=9.17, utterances=said,
                               feeling=True)
    assert [(d.start_s, d.end_s) for d in feeling] == [(3.4, 6.2)]


def test_a_candidates_visual_support_is_its_best_showing_two_seconds():
    """``tools.signals.stretches.best_stretch``: a 2 s grin at the end of a 4 s clip read at 4 fps supports the clip fully, after a
    gap of faceless frames too; a clip shorter than the stretch gives its mean; a frame that stands for more than the
    stretch (a sampling under 0.5 fps) gives the largest value, never an empty mean."""
    from tools.signals.stretches import best_stretch

    times = [k * 0.25 for k in range(16)]
    grin = [0.1] * 8 + [0.9] * 8
    assert best_stretch(times, grin, 2.0, 0.25) == pytest.approx(0.9)
    assert best_stretch(times[:2] + times[8:], grin[:2] + grin[8:], 2.0, 0.25) == pytest.approx(0.9)  # faces lost between
    assert best_stretch([0.0, 0.25, 0.5], [0.2, 0.4, 0.6], 2.0, 0.25) == pytest.approx(0.4)
    assert best_stretch([0.0, 4.0], [0.5, 0.7], 2.0, 4.0) == 0.7
    assert best_stretch([], [], 2.0, 0.25) == 0.0


def test_what_comes_next_keeps_the_earliest_change_however_it_ranks():
    """"What does he feel next?" is answered by the earliest change of feeling, not the largest: with room for one
    moment, a weaker change at 10 s is kept over a stronger one at 50 s; asked about a feeling, the stronger leads."""
    from agents.change_schema import MomentChange
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, VerifiedCandidate

    cands = [VerifiedCandidate(clip_id=f"c{t}", start_s=t - 2.0, end_s=t + 2.0, retrieval_score=0.5, source="change",
                               change_s=t, person=1, support=support, accepted=True)
             for t, support in ((10.0, 0.4), (50.0, 0.9))]

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        return EmotionJudgement(emotion="happiness", confidence=c.support, start_s=c.start_s, end_s=c.end_s,
                                target_probability=c.support, before="neutral")

    first, _ = draft_moments(cands, [], [], 1, 0.0, judge, duration_s=100.0, first_change=True)
    assert [d.change.t_s for d in first] == [10.0]
    assert isinstance(first[0].change, MomentChange) and first[0].change.before == "neutral"
    ranked, _ = draft_moments(cands, [], [], 1, 0.0, judge, duration_s=100.0)
    assert [d.change.t_s for d in ranked] == [50.0]


def _judged(spans: dict[str, tuple[float, float, float]], emotion: str = "happiness", before: str | None = None):
    """Candidates ``clip -> (start, end, support)``, each accepted with one face, and a judge that gives each its
    span."""
    from agents.schema import EmotionJudgement, Evidence, VerifiedCandidate

    cands = [VerifiedCandidate(clip_id=k, start_s=s, end_s=e, retrieval_score=0.5, source="clips", support=sup,
                               accepted=True, evidence=[Evidence(id=f"{k}.v0", modality="visual", tool="faces",
                                                                 start_s=s, end_s=s + 0.25, detail="a face",
                                                                 ref=f"perception/x.json#{k}")])
             for k, (s, e, sup) in spans.items()]

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        return EmotionJudgement(emotion=emotion, confidence=c.support, start_s=c.start_s, end_s=c.end_s,
                                target_probability=c.support, before=before)

    return cands, judge


def test_a_span_that_bridges_two_moments_of_its_emotion_joins_them_into_one():
    """0-1.2 s and 1.5-3 s read happiness; a third reading of 1.05-1.15 s grows to a second (0.6-1.6 s) and now
    overlaps both: one moment of 0-3 s, citing all three faces (before, two overlapping moments of one emotion)."""
    from agents.moments import draft_moments

    cands, judge = _judged({"a": (0.0, 4.0, 0.8), "b": (0.5, 4.0, 0.7), "c": (1.0, 4.0, 0.6)})
    spans = {"a": (0.0, 1.2), "b": (1.5, 3.0), "c": (1.05, 1.15)}  # judged in the candidates' order: a, b, then c

    def within(c):
        return judge(c).model_copy(update=dict(zip(("start_s", "end_s"), spans[c.clip_id], strict=True)))

    drafts, _ = draft_moments(cands, ["happiness"], [], 5, 0.0, within, duration_s=10.0)
    assert [(d.start_s, d.end_s) for d in drafts] == [(0.0, 3.0)]
    assert [e.id for e in drafts[0].evidence] == ["a.v0", "b.v0", "c.v0"] and drafts[0].confidence == 0.8


def test_a_moment_at_a_change_of_feeling_holds_its_change_point_and_a_merge_keeps_the_stronger_change():
    """A change refined to 3.375 s in a candidate of 3-7 s whose start snaps to the cut at 3.5 s: the moment starts
    at 3.375 s, holding the point it names (before, 3.5 s). Two changes of one person merged into one moment name the
    better-scored one (before, the first judged)."""
    from agents.change_schema import ChangeObservations
    from agents.moments import draft_moments
    from agents.observations import Observations

    cands, judge = _judged({"x": (3.0, 7.0, 0.8)}, before="neutral")
    cands[0] = cands[0].model_copy(update={"change_s": 3.5, "person": 1,
                                           "observations": Observations(change=ChangeObservations(t_s=3.375))})
    drafts, _ = draft_moments(cands, [], [3.5], 5, 0.0, judge, duration_s=10.0)
    assert [(d.start_s, d.end_s, d.change.t_s) for d in drafts] == [(3.375, 7.0, 3.375)]
    cands, judge = _judged({"x": (3.0, 7.0, 0.3), "y": (6.0, 10.0, 0.9)}, before="neutral")
    cands = [c.model_copy(update={"change_s": t, "person": 1}) for c, t in zip(cands, (5.0, 8.0), strict=True)]
    drafts, _ = draft_moments(cands, [], [], 5, 0.0, judge, duration_s=20.0)
    assert [(d.start_s, d.end_s, d.change.t_s) for d in drafts] == [(3.0, 10.0, 8.0)]


def test_a_moment_is_a_second_long_after_its_edges_are_kept_to_the_millisecond():
    """A judged span of exactly a second between half-millisecond edges (0.0005-1.0005 s) rounded to 0.001-1.0 s,
    0.999 s, once its length had been checked; every grown span is a second to the millisecond."""
    from agents.moments import draft_moments

    cands, judge = _judged({"a": (0.0005, 1.0005, 0.8)})
    [d], _ = draft_moments(cands, ["happiness"], [], 5, 0.0, judge, duration_s=10.0)
    assert round(d.end_s - d.start_s, 3) >= MIN_MOMENT_S
    for s, e in ((2.0005, 2.1005), (3.4445, 3.5), (0.1235, 0.2)):
        a, b = at_least_a_moment(s, e, (0.0, 10.0), 10.0)
        assert round(b - a, 3) == MIN_MOMENT_S, (s, e, a, b)


def test_a_question_that_names_no_feeling_ranks_its_moments_by_support_alone():
    """"When does he point at the crowd?" on the sample: the pointing (support 0.42, read happiness 0.09) led by the
    thumbs-up after it (support 0.37, read neutral 0.16) when the label's confidence weighed in. A question that names
    no feeling ranks by support; one that names a feeling by support x the asked emotions' probability, and change
    points by support x confidence, as before."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement

    cands, _ = _judged({"point": (3.58, 7.884, 0.417), "thumbs": (7.884, 10.02, 0.37)})
    sure = {"point": 0.089, "thumbs": 0.157}

    def judge(c):
        return EmotionJudgement(emotion="neutral" if c.clip_id == "thumbs" else "happiness", confidence=sure[c.clip_id],
                                start_s=c.start_s, end_s=c.end_s, target_probability=sure[c.clip_id])

    drafts, _ = draft_moments(cands, [], [], 5, 0.0, judge, duration_s=10.02)
    assert [d.start_s for d in drafts] == [3.58, 7.884]
    drafts, _ = draft_moments(cands, ["happiness", "neutral"], [], 5, 0.0, judge, duration_s=10.02)
    assert [d.start_s for d in drafts] == [7.884, 3.58]
    changes = [c.model_copy(update={"change_s": c.start_s + 1.0, "person": 0}) for c in cands]
    drafts, _ = draft_moments(changes, [], [], 5, 0.0,
                              lambda c: judge(c).model_copy(update={"before": "sadness"}), duration_s=10.02)
    assert [d.start_s for d in drafts] == [7.884, 3.58]


def test_two_clips_that_saw_one_pointing_give_one_moment():
    """The looped sample (``studies.gesture_loop``): two overlapping clips of one shot (88.06-92.06 s, 90.06-93.1 s)
    both saw the pointing at 91.064 s (the same stored hand record); each span, the pointing +- 1 s cut to its clip,
    read another label (surprise, happiness) and the answer listed the pointing twice (tIoU 0.89, below
    ``SAME_MOMENT_TIOU``). Two spans a question about behaviour took from one record are one moment; spans of two
    pointings stay two."""
    from agents.moments import draft_moments
    from agents.observations import BehaviourObservations, Observations
    from agents.schema import EmotionJudgement, Evidence, VerifiedCandidate

    def seen(clip: str, start: float, end: float, record: str, t: float) -> VerifiedCandidate:
        point = Evidence(id=f"{clip}.g0", modality="visual", tool="gestures", start_s=t, end_s=t + 0.25, person=2,
                         detail="person 2 points with the index finger (point)", ref=f"perception/x.json#{record}")
        obs = Observations(behaviour=BehaviourObservations(span=[t, t + 0.25], evidence_id=point.id, match=0.69))
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=end, retrieval_score=0.5, source="clips",
                                 support=0.69, accepted=True, evidence=[point], observations=obs)

    spans = {"c36": (90.06, 92.06, "surprise"), "c37": (90.064, 92.31, "happiness"), "c9": (20.0, 22.25, "anger")}

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        s, e, label = spans[c.clip_id]
        return EmotionJudgement(emotion=label, confidence=0.12, start_s=s, end_s=e)

    cands = [seen("c36", 88.06, 92.06, "h45.4.1", 91.064), seen("c37", 90.06, 93.1, "h45.4.1", 91.064),
             seen("c9", 19.0, 23.0, "h9.1.0", 21.0)]
    drafts, _ = draft_moments(cands, [], [], 5, 0.0, judge, duration_s=700.0)
    assert [(d.start_s, d.end_s, d.emotion) for d in drafts] == [(20.0, 22.25, "anger"), (90.06, 92.06, "surprise")]
    drafts, _ = draft_moments(cands, ["anger"], [], 5, 0.0, judge, duration_s=700.0)  # a feeling: no gesture sets spans
    assert all(d.anchor is None for d in drafts)
    # ... and the two spans of one time read as two feelings are one moment all the same (``read_twice``)
    assert [(d.start_s, d.end_s, d.emotion) for d in drafts] == [(20.0, 22.25, "anger"), (90.06, 92.06, "surprise")]


def test_one_time_read_as_two_feelings_keeps_the_stronger_reading_and_the_rest_of_the_weaker():
    """The talking head (one 8 s shot, clips 0-4, 2-6, 4-8 s) asked "how does she feel?" answered happiness over
    0-4.6 s (confidence 0.29) and neutral over 0-7.8 s (0.18), each clip's span grown over the same utterance: two
    feelings for one person at one time. The stronger reading keeps its time and the weaker keeps what lies outside it,
    with the evidence there, whatever the question asks; two clips that overlap by half, a change of feeling, two
    people's faces, or a remainder under a second with nothing observed in it are not cut."""
    from agents.change_schema import MomentChange
    from agents.moments import ranked, read_twice
    from agents.schema import Evidence, MomentDraft

    def face(t: float, person: int = 0) -> Evidence:
        return Evidence(id=f"c.v{t}", modality="visual", tool="face", start_s=t, end_s=t + 0.2, person=person,
                        detail="a face", ref=f"perception/f.json#{t}")

    def draft(s: float, e: float, label: str, conf: float, seen: tuple[float, ...], person: int = 0,
              change: bool = False) -> MomentDraft:
        return MomentDraft(start_s=s, end_s=e, emotion=label, confidence=conf, score=conf,
                           evidence=[face(t, person) for t in seen],
                           change=MomentChange(t_s=s + 1, person=0, before="neutral", after=label, magnitude=0.3)
                           if change else None)

    happy, calm = draft(0.0, 4.6, "happiness", 0.29, (0.8,)), draft(0.0, 7.8, "neutral", 0.18, (0.4, 5.0))
    assert read_twice(calm, happy) and read_twice(happy, calm)
    spans = [(d.start_s, d.end_s, d.emotion) for d in ranked([calm, happy], [])]
    assert spans == [(0.0, 4.6, "happiness"), (4.6, 7.8, "neutral")]
    cut = ranked([calm, happy], ["neutral"])
    assert [(d.start_s, d.end_s, d.emotion) for d in cut] == [(4.6, 7.8, "neutral"), (0.0, 4.6, "happiness")]
    assert [e.start_s for e in cut[0].evidence] == [5.0]  # the face seen at 0.4 s lies in happiness's time
    assert len(ranked([draft(0.0, 7.8, "neutral", 0.18, (0.4,)), happy], [])) == 1  # nothing seen in 4.6-7.8 s
    assert len(ranked([draft(0.0, 5.0, "neutral", 0.18, (4.8,)), happy], [])) == 1  # 0.4 s left: no moment
    halves = [draft(0.0, 4.0, "happiness", 0.29, (1.0,)), draft(2.0, 6.0, "neutral", 0.18, (5.0,))]
    assert [(d.start_s, d.end_s) for d in ranked(halves, [])] == [(0.0, 4.0), (2.0, 6.0)]
    assert len(ranked([draft(0.0, 7.8, "neutral", 0.18, (5.0,), change=True), happy], [])) == 2
    other = draft(0.0, 7.8, "neutral", 0.18, (5.0,), person=1)  # another person's face at the same time
    assert [(d.start_s, d.end_s) for d in ranked([other, happy], [])] == [(0.0, 4.6), (0.0, 7.8)]
    # the same span read twice: the more confident reading keeps it, whatever the question asks or denies
    twin = draft(0.0, 4.9, "neutral", 0.18, (0.4, 4.7))
    for targets, denied in (([], ()), (["neutral"], ()), (["sadness"], ("happiness",))):
        assert [d.emotion for d in ranked([twin, happy], targets, denied=denied)] == ["happiness"]
    # a reading cut by one stronger reading and then reading the time of another is cut (or left out) again
    sad, glad = draft(7.5, 12.0, "sadness", 0.9, (8.0,)), draft(0.0, 7.0, "happiness", 0.8, (1.0,))
    spans = [(d.start_s, d.end_s, d.emotion) for d in ranked([draft(0.0, 10.0, "neutral", 0.2, (8.5,)), sad, glad], [])]
    assert spans == [(7.5, 12.0, "sadness"), (0.0, 7.0, "happiness")]
    # a coarse reading (the index's 1 fps frames only) gives way to one read at the verifier's rate
    coarse = draft(0.0, 4.6, "happiness", 0.9, (0.8,)).model_copy(update={"coarse": True})
    assert [(d.start_s, d.end_s, d.emotion) for d in ranked([coarse, calm], [])] == [(0.0, 7.8, "neutral")]
    # the part left must last a second and hold what was seen; the part before is taken when the part after is empty
    inner = draft(2.0, 4.0, "happiness", 0.29, (3.0,))
    assert [(d.start_s, d.end_s) for d in ranked([draft(0.0, 10.0, "neutral", 0.18, (1.0,)), inner], [])] == [
        (2.0, 4.0), (0.0, 2.0)]
    assert [(d.start_s, d.end_s) for d in ranked([draft(1.3, 6.3, "neutral", 0.18, (1.5,)), draft(
        2.3, 6.3, "happiness", 0.29, (3.0,))], [])] == [(2.3, 6.3), (1.3, 2.3)]  # 2.3 - 1.3 counts as a second


def test_the_talking_head_names_one_feeling_at_a_time(cache_root):
    """Asked on the recorded talking head (one shot), no answer names two feelings over the same time."""
    from graphs.pipeline import answer_query

    for query in ("how does she feel?", "when is she calm?", "when is someone afraid?"):
        moments = answer_query(shared_media("WDA_KatieHill_000.mp4"), query, cache_dir=cache_root).moments
        assert moments
        for i, a in enumerate(moments):
            for b in moments[i + 1:]:
                overlap = min(a.end_s, b.end_s) - max(a.start_s, b.start_s)
                assert a.emotion == b.emotion or overlap < 0.75 * min(a.end_s - a.start_s, b.end_s - b.start_s)


def test_a_merged_moment_cites_a_frame_its_two_clips_share_once():
    """Two overlapping clips (0-4 s, 2-6 s) judged happiness join into one moment; both cite the face at 3 s from the
    one stored record (ids a.v0 and b.v0): the moment cites it once (before, twice, so its rationale said it twice),
    beside each clip's own face."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, Evidence, VerifiedCandidate

    def face(clip: str, t: float) -> Evidence:
        return Evidence(id=f"{clip}.v{int(t)}", modality="visual", tool="faces", start_s=t, end_s=t + 0.25, person=0,
                        detail=f"person 0's face at x=0.50, y=0.40 shows happiness (p=0.8{int(t)})",
                        ref=f"perception/x.json#f{int(t)}")

    cands = [VerifiedCandidate(clip_id=k, start_s=s, end_s=s + 4.0, retrieval_score=0.5, source="clips", support=0.8,
                               accepted=True, evidence=[face(k, t) for t in times])
             for k, s, times in (("a", 0.0, (1.0, 3.0)), ("b", 2.0, (3.0, 5.0)))]

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        return EmotionJudgement(emotion="happiness", confidence=0.8, start_s=c.start_s, end_s=c.end_s,
                                target_probability=0.8)

    [moment], _ = draft_moments(cands, ["happiness"], [], 5, 0.0, judge, duration_s=10.0)
    assert (moment.start_s, moment.end_s) == (0.0, 6.0)
    assert [e.ref for e in moment.evidence] == ["perception/x.json#f1", "perception/x.json#f3", "perception/x.json#f5"]


def test_an_order_of_time_puts_the_asked_emotions_moments_in_time_order_over_a_floor():
    """``ranked`` with ``order``: the asked emotion's moments scored at least ``ORDER_FLOOR`` of the best of them go
    earliest (or latest) first; one read far weaker goes after them by score, and the other emotions' moments keep
    their order by score after those (a question with no moment of its emotion does not lead with whatever comes
    first). Without an order, the ranking is by score."""
    from agents.moments import ORDER_FLOOR, ranked
    from agents.schema import MomentDraft

    def draft(start_s: float, emotion: str, score: float) -> MomentDraft:
        return MomentDraft(start_s=start_s, end_s=start_s + 3.0, emotion=emotion, confidence=0.5, score=score,
                           evidence=[])

    weak = 0.9 * ORDER_FLOOR * 0.8
    drafts = [draft(20.0, "happiness", 0.8), draft(10.0, "happiness", 0.6), draft(0.0, "happiness", weak),
              draft(5.0, "neutral", 0.3), draft(30.0, "neutral", 0.7)]
    def starts(ds: list[MomentDraft]) -> list[float]:
        return [d.start_s for d in ds]

    assert starts(ranked(drafts, ["happiness"])) == [20.0, 10.0, 0.0, 30.0, 5.0]
    assert starts(ranked(drafts, ["happiness"], order="first")) == [10.0, 20.0, 0.0, 30.0, 5.0]
    assert starts(ranked(drafts, ["happiness"], order="last")) == [20.0, 10.0, 0.0, 30.0, 5.0]
    assert starts(ranked(drafts, ["fear"], order="first")) == starts(ranked(drafts, ["fear"]))  # none of it: by score


def test_a_moment_read_as_the_denied_feeling_ranks_last(cache_root):
    """"when is nobody happy?": its targets are the interpreter's guess at the rest (sadness); a moment read as the
    happiness it denies ranks after every other, however well supported, and so on the talking head, which answered
    with her smile (happiness 0-4.6 s) before."""
    from agents.moments import ranked
    from agents.schema import MomentDraft
    from graphs.pipeline import answer_query

    def draft(s: float, e: float, label: str, score: float) -> MomentDraft:
        return MomentDraft(start_s=s, end_s=e, emotion=label, confidence=score, score=score, evidence=[])

    drafts = [draft(0.0, 2.0, "happiness", 0.9), draft(5.0, 7.0, "neutral", 0.2), draft(9.0, 11.0, "sadness", 0.1)]
    assert [d.emotion for d in ranked(drafts, ["sadness"])] == ["sadness", "happiness", "neutral"]
    assert [d.emotion for d in ranked(drafts, ["sadness"], denied=("happiness",))] == ["sadness", "neutral", "happiness"]
    assert [d.emotion for d in ranked(drafts, [], order="first", denied=("happiness",))] == [
        "neutral", "sadness", "happiness"]
    answer = answer_query(shared_media("WDA_KatieHill_000.mp4"), "when is nobody happy?", cache_dir=cache_root)
    assert answer.moments and answer.moments[0].affectnet8 != "happiness"
