"""Person grounding on real media: "the audience", "the speaker", "she", "the older man" resolved to people of
the index."""

from __future__ import annotations

import pytest

from agents.grounding import GROUNDED_MIN_CONFIDENCE, ground_people, grounded_persons
from indexing.build import open_index
from memory.index_config import IndexConfig
from tests.conftest import SAMPLE, shared_media

pytestmark = pytest.mark.slow

#: The first frame of the sample's audience shot (found by looking at its frames; ``tests.test_moments``).
AUDIENCE_SHOT_S = 7.884


@pytest.fixture(scope="module")
def sample_index(cache_root):
    return open_index(SAMPLE, IndexConfig(), cache_root)


def test_the_audience_is_the_people_of_the_crowd_shot(sample_index):
    # watched: 7.9-10 s shows three audience members laughing (tracks 5, 6, 7), who never speak
    [g] = ground_people(["the audience"], sample_index)
    audience = {sample_index.person_of(t.track_id) for t in sample_index.tracks if t.first_s >= AUDIENCE_SHOT_S}
    assert g.rule == "group" and set(g.persons) == audience and len(audience) == 3
    assert g.confidence >= GROUNDED_MIN_CONFIDENCE and len(g.thumbnails) == 3
    assert grounded_persons([g]) == audience


def test_whose_feeling_an_open_question_asks_about_is_its_subject_alone(sample_index):
    """"How does the crowd react to him?": the audience's faces are read, not those "him" grounds (every face read as
    a man, the performer among them); a subject nobody grounds names nobody in particular, so every face is read, not
    the other phrases' people (section 145)."""
    from agents.intent import offline_intent

    who = sample_index.person_of
    intent = offline_intent({"query": "how does the crowd react to him?"})
    assert intent.asks_feeling and intent.feeling_of == ["the audience"] and "a man" in intent.people
    groundings = ground_people(intent.people, sample_index)
    audience = {who(t.track_id) for t in sample_index.tracks if t.first_s >= AUDIENCE_SHOT_S}
    assert grounded_persons(groundings, intent.feeling_of) == audience
    assert who(4) in grounded_persons(groundings)  # all phrases: the performer too
    assert grounded_persons(groundings, ["a child"]) == set()  # empty: the verifier reads every face


def test_the_speaker_is_the_performer(sample_index):
    # the performer speaks 0-8 s (lip activity gives him the utterances); he is tracks 0 and 4
    [g] = ground_people(["the speaker"], sample_index)
    performer = sample_index.person_of(4)
    assert g.rule == "speaking" and g.persons == [performer] == [sample_index.person_of(0)]
    assert 0 < g.confidence <= 1


def test_she_names_the_women_of_the_audience(sample_index):
    # watched, 8-10 s: a woman on the right (track 5), a man in the middle (track 6), a woman on the left
    # (track 7); the performer (tracks 0 and 4) is a young man, the man in the middle is over 40
    who = sample_index.person_of
    [g] = ground_people(["a woman"], sample_index)
    assert g.rule == "appearance" and set(g.persons) == {who(5), who(7)}
    assert g.confidence >= GROUNDED_MIN_CONFIDENCE and len(g.thumbnails) == 2
    assert grounded_persons([g]) == {who(5), who(7)}
    [men] = ground_people(["a man"], sample_index)
    assert {who(4), who(6)} <= set(men.persons) and not {who(5), who(7)} & set(men.persons)
    [older] = ground_people(["an older man"], sample_index)
    assert who(6) in older.persons and who(4) not in older.persons
    assert ground_people(["anyone"], sample_index) == []


def test_she_is_the_woman_of_a_talking_head_and_he_is_nobody(cache_root):
    index = open_index(shared_media("WDA_KatieHill_000.mp4"), IndexConfig(), cache_root)
    her = index.person_of(index.tracks[0].track_id)
    [g] = ground_people(["a woman"], index)
    assert g.rule == "appearance" and g.persons == [her] and g.confidence >= 0.9
    [he] = ground_people(["a man"], index)
    assert he.rule == "unresolved" and he.persons == [] and "read as a woman" in he.detail


def test_without_a_read_face_she_is_the_only_person_on_screen(cache_root):
    import dataclasses

    index = open_index(shared_media("WDA_KatieHill_000.mp4"), IndexConfig(), cache_root)
    index = dataclasses.replace(index, tracks=[t.model_copy(update={"appearance": None}) for t in index.tracks])
    [g] = ground_people(["a woman"], index)
    assert g.rule == "only_person" and g.persons == [index.person_of(index.tracks[0].track_id)]
    assert g.confidence == 1.0
    [older] = ground_people(["an older woman"], index)
    assert older.rule == "unresolved" and older.persons == []


def test_the_verifier_reads_only_the_grounded_peoples_faces(cache_root, sample_index):
    from graphs.pipeline import answer_query

    answer = answer_query(SAMPLE, "when does the audience enjoy the show?", cache_dir=cache_root)
    [g] = answer.people
    assert g.phrase == "the audience" and g.rule == "group"
    faces = [e for m in answer.moments for e in m.evidence if e.modality == "visual" and "'s face" in e.detail]
    assert faces and {e.person for e in faces} <= set(g.persons)
    assert any("the audience -> person" in step.decision for step in answer.trace if step.node == "person_grounder")


def test_the_localizer_reads_only_the_grounded_peoples_faces(sample_index):
    from agents.localizer import affect_scores

    [g] = ground_people(["the audience"], sample_index)
    everyone = affect_scores(sample_index, ["happiness"])
    audience = affect_scores(sample_index, ["happiness"], grounded_persons([g]))
    # every clip has faces; the audience is seen only in the last shot (8-10 s), and the performer's
    # speech elsewhere is his (lips or voice), so no other clip keeps a face or voice score
    assert set(everyone) == {c.id for c in sample_index.clips}
    assert set(audience) == {c.id for c in sample_index.clips if c.end_s > 8.0}
    assert all(0.0 <= s <= 1.0 for s in audience.values())


def test_the_localizer_reads_every_face_inside_a_clip_whatever_its_length(cache_root):
    """With a stride more than twice the window (``--clip-len 0.5 --clip-stride 3.5``) a shot's last window can run
    past two window lengths (the audience's shot, 7.9-10.0 s, is one 2.1 s window); the faces at its end still count
    for it: each clip's face score is the mean over the grounded people's 1 fps faces inside the clip."""
    from agents.localizer import affect_scores

    index = open_index(SAMPLE, IndexConfig(clip_len_s=0.5, clip_stride_s=3.5, use_audio=False), cache_root)
    [g] = ground_people(["the audience"], index)
    persons = grounded_persons([g])
    long = [c for c in index.clips if c.end_s - c.start_s > 1.0]
    assert any(fr.t > c.start_s + 1.0 and fr.t < c.end_s for c in long for fr in index.faces)
    scores = affect_scores(index, ["happiness"], persons)
    for clip in index.clips:  # read without the audio track, so a clip's score is its faces' alone
        faces = [f.expression["happiness"] for fr in index.faces if clip.start_s <= fr.t < clip.end_s
                 for f in fr.faces if f.track_id is not None and index.person_of(f.track_id) in persons]
        assert scores.get(clip.id) == (pytest.approx(sum(faces) / len(faces)) if faces else None), clip.id


def test_a_place_on_screen_names_one_person_per_shot(sample_index):
    # watched, 8-10 s: three audience members side by side; the man in the middle (track 6) laughs with his
    # hand at his chin, the woman on the right (track 5) beside him, a woman on the left (track 7) at 9 s
    who = sample_index.person_of
    [middle] = ground_people(["a man in the middle"], sample_index)
    assert middle.rule == "position" and middle.persons == [who(6)] and middle.confidence >= GROUNDED_MIN_CONFIDENCE
    # the 1-3 s close-up of the pianist (a man, right) shows a blurred face behind him (left, a third his size)
    [right] = ground_people(["a woman on the right"], sample_index)
    assert right.persons == [who(5)]  # not the pianist, who is on the right of the close-up
    [left] = ground_people(["the person on the left"], sample_index)
    assert left.persons == [who(7)]  # the blurred background face takes no place
    [man] = ground_people(["a man on the right"], sample_index)
    assert man.rule == "unresolved" and f"reads otherwise than a man: person {who(5)}" in man.detail


def test_positions_are_read_only_after_a_person_noun():
    from tools.signals.lexicon import person_phrases

    assert person_phrases("when does the woman on the right laugh?") == ["a woman on the right"]
    assert person_phrases("when does the one in the middle smile at him?") == ["the person in the middle", "a man"]
    assert person_phrases("when does she feel left out?") == ["a woman"]
    assert person_phrases("what happens in the middle of the show?") == []


def test_age_words_qualify_the_person_they_precede():
    from tools.signals.lexicon import person_phrases

    assert person_phrases("when does the older man laugh?") == ["an older man"]
    assert person_phrases("is the old lady sad when the young one speaks?") == ["an older woman", "a young person"]
    assert person_phrases("when does the kid cry?") == ["a child"]
    assert person_phrases("when does the young woman on the left smile?") == ["a woman on the left"]


def test_every_person_noun_with_an_age_word_is_read_by_appearance():
    """Each phrase an age word makes of a person noun ("the young girl", "the older boy", "the elderly gentleman") is
    one the appearance rule reads, so none is dropped as naming nobody in particular."""
    from agents.grounding_rules import APPEARANCE_PHRASES
    from tools.signals.lexicon import AGE_ADJECTIVES, POSITIONED_NOUNS, person_phrases

    for adjective in AGE_ADJECTIVES:
        for noun in POSITIONED_NOUNS:
            [phrase] = person_phrases(f"when does the {adjective} {noun} smile?")
            assert phrase in APPEARANCE_PHRASES, (adjective, noun, phrase)
    assert APPEARANCE_PHRASES["a young girl"] == ("woman", "young")


def test_a_hosted_models_people_phrases_reach_the_offline_rules(sample_index):
    from agents.grounding import canonical_phrase

    assert canonical_phrase("the older man") == "an older man" and canonical_phrase("She") == "a woman"
    assert canonical_phrase("the man in the dark suit") == "the man in the dark suit"  # left to a vision model
    [g] = ground_people(["the older man"], sample_index)
    assert g.phrase == "an older man" and g.rule == "appearance" and sample_index.person_of(6) in g.persons


def test_the_verifier_reads_the_face_of_the_person_a_place_names(cache_root, sample_index):
    from graphs.pipeline import answer_query

    answer = answer_query(SAMPLE, "when does the man in the middle laugh?", cache_dir=cache_root)
    [g] = answer.people
    assert g.rule == "position" and g.persons == [sample_index.person_of(6)]
    assert answer.moments and AUDIENCE_SHOT_S <= answer.moments[0].start_s < 10.0
    faces = [e for m in answer.moments for e in m.evidence if e.modality == "visual" and "'s face" in e.detail]
    assert faces and {e.person for e in faces} == set(g.persons)


def test_the_verifier_reads_the_faces_of_the_women_she_names(cache_root, sample_index):
    from graphs.pipeline import answer_query

    answer = answer_query(SAMPLE, "when does she laugh?", cache_dir=cache_root)
    [g] = answer.people
    assert g.phrase == "a woman" and g.rule == "appearance"
    assert set(g.persons) == {sample_index.person_of(5), sample_index.person_of(7)}
    assert answer.moments and AUDIENCE_SHOT_S <= answer.moments[0].start_s < 10.0
    faces = [e for m in answer.moments for e in m.evidence if e.modality == "visual" and "'s face" in e.detail]
    assert faces and {e.person for e in faces} <= set(g.persons)
