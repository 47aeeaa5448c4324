"""The README's figures of the offline question reader: which emotion a question asks, what it denies, whose feeling
it asks about, read on held-out question files (``evals.figures.FIGURES`` holds these rows in its table)."""

from __future__ import annotations

from evals.figure_cells import Figure, heldout_row, negation_share, paired_share, share, stored


def _parts_read(now: dict, before: dict, score: str = "part_window", score_before: str = "part_window") -> str:
    """A ``studies.window_questions --read`` result's explicit parts read right (``score``), now with its stored
    interval, and before (``score_before``) in brackets."""
    got, was = now["scores"][score], before["scores"][score_before]
    return f"{stored([got['right'] / got['n'], *got['interval']])} ({was['right'] / was['n']:.3f})"


QUESTION_FIGURES: tuple[Figure, ...] = (
    Figure("asked emotion named first, offline interpreter (whole question)", "48 labelled questions, test half (read 4 times: now dev)",
           "intent_test.json", lambda d: f"{share(d['phrase_and_words']['questions']['top1'], 48)} "
                                         f"({d['whole_question']['questions']['top1']:.3f})"),
    heldout_row("second held-out questions, 48 idioms and slang, idioms read through Wiktionary's glosses (read once; "
             "section 86; without the glosses)", "intent_heldout2.json", "with glosses (shipped)", "without glosses"),
    heldout_row("second held-out questions, 16 in VQAU-Bench's memory form (read once; without the glosses)",
             "intent_heldout2.json", "with glosses (shipped)", "without glosses", "memory"),
    heldout_row("third held-out questions, 48 idioms and slang, words read through WordNet's glosses too (read once; "
             "section 90; without the word glosses)", "intent_heldout3.json", "with word glosses (shipped)",
             "without word glosses"),
    heldout_row("third held-out questions, 16 in VQAU-Bench's memory form (read once; without the word glosses)",
             "intent_heldout3.json", "with word glosses (shipped)", "without word glosses", "memory"),
    heldout_row("fourth held-out questions, 48 idioms and slang, negation read, its first version (read once; section "
             "91; without)", "negation_heldout1.json", "with negation (shipped)", "without negation",
             within="heldout4"),
    heldout_row("fourth held-out questions, 16 in VQAU-Bench's memory form (read once, the first version: one lost, "
             "mended since; without)", "negation_heldout1.json", "with negation (shipped)", "without negation",
             "memory", within="heldout4"),
    heldout_row("fifth held-out questions, 48 idioms and slang, neutral described as an unmoved face and an ordinary "
             "scene too (read once; section 101; without)", "neutral_descriptions_heldout5.json",
             "neutral's five descriptions (shipped)", "neutral's three descriptions"),
    heldout_row("fifth held-out questions, 16 in VQAU-Bench's memory form (read once; without)",
             "neutral_descriptions_heldout5.json", "neutral's five descriptions (shipped)",
             "neutral's three descriptions", "memory"),
    heldout_row("sixth held-out questions, 48 idioms and slang (read once; section 102; with one more description for "
             "every label but happiness, not kept)", "descriptions_heldout6.json",
             "section 101's descriptions (shipped)", "one more for every label but happiness (not kept)"),
    heldout_row("sixth held-out questions, 16 in VQAU-Bench's memory form (read once; with those descriptions)",
             "descriptions_heldout6.json", "section 101's descriptions (shipped)",
             "one more for every label but happiness (not kept)", "memory"),
    Figure("", "memory-form questions, 48, each a scene and the feeling the viewer states, read with that feeling "
               "(read once; section 175; the whole memory alone, as before)", "memory_form_test.json",
           lambda d: f"{share(d['now'] / d['n'], d['n'])} ({d['before'] / d['n']:.3f})"),
    Figure("", "questions with a clause of context beside the one asked (\"when does she look hurt after he mentions "
               "her ex?\"), 60: 48 about a feeling, 12 about a behaviour (none asked), read by the main clause (read "
               "once, section 177: 48 right; 47 since section 178's mends, the one lost read before the change; the "
               "whole question, as before)", "context_clauses_mended.json",
           paired_share),
    Figure("", "questions about a feeling ending (\"when does he stop smiling?\"), 52: 40 read right when asked as a "
               "change from that feeling, 12 controls (a feeling that goes on, an action that stops) when not (read "
               "once; section 178; before)", "cessation_test.json",
           paired_share),
    Figure("", "questions whose context opens with \"if\", \"since\", \"though\", \"although\" or \"during\" (\"when does "
               "he cry if she mentions his father?\"), 64 (read once; section 180; before)", "context_openers_test.json",
           paired_share),
    Figure("", "questions about a feeling after someone leaves said by a sign on the face (\"when does she cry after he "
               "leaves?\"), 48 (read once, section 182: 42 right; 41 since a review's mends; before)",
           "departure_questions_test.json", paired_share),
    Figure("", "questions about where or how someone looks, 64: 40 with no feeling (none asked), 24 with a look that "
               "names one (read once, section 183: 50 right; 43 since a review's mends, 57 since section 184, "
               "developed on it; before)", "look_questions_test.json", paired_share),
    Figure("", "second look questions, 88: 56 with no feeling (none asked), 32 with a look that names one (read once; "
               "section 184; before)", "look_questions2_test.json", paired_share),
    Figure("", "third feeling-word questions, 88: 72 everyday feeling words (\"look stoic\", \"seem petrified\"), 16 "
               "words about a person that name no feeling (none asked) (read once; section 185; before)",
           "feeling_words3_test.json", paired_share),
    Figure("", "second open questions, 80: 48 asking which feeling, expression or look someone shows (\"how does she "
               "look when he walks in?\", \"what is her expression?\"; none asked), 16 such frames naming a feeling, "
               "16 asking where someone looks (none asked) (read once; section 186; before)",
           "open_questions2_test.json", paired_share),
    Figure("", "activity questions, 80: 48 about an everyday activity that say no feeling (\"when does she eat "
               "lunch?\"; none asked), 32 an activity done with a feeling, 4 per label (read once; section 191; "
               "before)",
           "activity_questions_test.json", paired_share),
    Figure("denied emotion not asked, offline interpreter (without negation read)",
           "second negation questions, 24 negated (\"when is she not happy?\"; read once; section 91)",
           "negation_heldout2.json",
           lambda d: f"{negation_share(d, 'with negation (shipped)', 'negated_avoided', 'of_negated')} "
                     f"({negation_share(d, 'without negation', 'negated_avoided', 'of_negated', False)})"),
    Figure("feeling not denied named first (without negation read)",
           "same file, 16 that deny no feeling (\"can't stop laughing\", \"nobody wanted the party to end, felt so "
           "joyful\")",
           "negation_heldout2.json",
           lambda d: f"{negation_share(d, 'with negation (shipped)', 'not_negated_top1', 'of_not_negated')} "
                     f"({negation_share(d, 'without negation', 'not_negated_top1', 'of_not_negated', False)})"),
    Figure("asked emotion named first, a question in another language (the English reader alone)",
           "the labelled test half translated into Spanish, German, French and Chinese, 192 questions (read once; "
           "section 105; interval over the English questions)", "translated_questions_heldout.json",
           lambda d: f"{stored([d['now']['feeling']['top1'], *d['now']['feeling']['top1_ci95']])} "
                     f"({d['before']['feeling']['top1']:.3f})"),
    Figure("",
           "48 idioms and slang phrasings of the sixth held-out file translated likewise, 192 (read once; section 107;"
           " the frame words dropped; section 105's reading)", "translated_questions_heldout2.json",
           lambda d: f"{stored([d['now']['feeling']['top1'], *d['now']['feeling']['top1_ci95']])} "
                     f"({d['section_105']['feeling']['top1']:.3f})"),
    Figure("",
           "questions written in Spanish, German, French and Chinese, 192 asking a feeling (read once; section 192; "
           "section 107's reading, without the word-by-word reading)", "translated_questions_heldout4.json",
           lambda d: f"{stored([d['now']['feeling']['top1'], *d['now']['feeling']['top1_ci95']])} "
                     f"({d['section_107']['feeling']['top1']:.3f})"),
    Figure("",
           "a third such file, 192 asking a feeling (read once; section 194, read against the descriptions in its own "
           "language too; section 192's reading)", "translated_questions_heldout5.json",
           lambda d: f"{stored([d['now']['feeling']['top1'], *d['now']['feeling']['top1_ci95']])} "
                     f"({d['section_192']['feeling']['top1']:.3f})"),
    Figure("",
           "a fourth such file, 192 asking a feeling (read once; section 195, each label's lead over every question "
           "taken off; section 194's reading)", "translated_questions_heldout6.json",
           lambda d: f"{stored([d['now']['feeling']['top1'], *d['now']['feeling']['top1_ci95']])} "
                     f"({d['section_194']['feeling']['top1']:.3f})"),
    Figure("part of the video a question names, read right (both ends within 1 s), offline question reader (before: "
           "section 200's reading)", "third file of questions about long videos, 56 naming a part in times (\"middle "
           "third of the webinar: ...\", \"1h15 onward, ...\"; read once; section 202; one read wrong both ways, 16 of "
           "16 naming none left whole both ways)", "time_questions_heldout3.json",
           lambda d: _parts_read(d["section_202"], d["section_200"])),
    Figure("", "fourth file, 56 naming a part in times, 10 of them a point (\"around 25:30, ...\"; read once; "
               "section 203; a point read right when its window holds the writer's middle, both at most 120 s wide; "
               "none read wrong, four before; 16 of 16 naming none left whole both ways; before: section 202's "
               "reading)", "time_questions_heldout4.json",
           lambda d: _parts_read(d["section_203"], d["section_202"], "part_window_point", "part_window")),
    Figure("", "fifth file, 32 naming a part by its position alone (\"towards the end\", \"about halfway through\"; "
               "read once; section 204; right when within tIoU 0.5 of the writer's stretch; 5 read otherwise, 25 of "
               "the "
               "28 read hold the writer's stretch; none of its 24 no-part questions, 16 with position words about "
               "something else, given a part; before: section 203's reading, which reads none)",
           "time_questions_heldout5.json",
           lambda d: _parts_read(d["section_204"], d["section_203"], "vague_window_loose", "vague_window")),
    Figure("whose feeling a question naming several people asks about, offline interpreter (before: every named "
           "person's face read)", "feeling-owner questions, test half, 32 (\"when does he upset her?\"; read twice: "
           "31 with the first version, section 169; now dev)", "feeling_owner.json",
           lambda d: f"{stored([d['test/now']['right'] / d['test/now']['n'], *d['test/now']['right_95']])} "
                     f"({d['test/before']['right'] / d['test/before']['n']:.3f})"),
)
