"""The part of a video a question names ("in the last ten minutes"): read from its words, searched alone."""

from __future__ import annotations

import pytest

from tools.signals.time_words import WindowAsk, asked_window, time_seconds, window_warnings, without_window

HOUR = 3600.0


@pytest.mark.parametrize(("question", "phrase", "window"), [
    ("How does she react in the last five minutes?", "in the last five minutes", (3300.0, HOUR)),
    ("when is he angry after 12:30?", "after 12:30", (750.0, HOUR)),
    ("when does she smile between minute 3 and minute 5?", "between minute 3 and minute 5", (180.0, 300.0)),
    ("when does she smile between 3 and 5 minutes?", "between 3 and 5 minutes", (180.0, 300.0)),
    ("when is he sad in the first half?", "in the first half", (0.0, 1800.0)),
    ("when is he sad in the second half?", "in the second half", (1800.0, HOUR)),
    ("when does she laugh before the 2 minute mark?", "before the 2 minute mark", (0.0, 120.0)),
    ("when does someone get angry after the first ten minutes?", "after the first ten minutes", (600.0, HOUR)),
    ("when is she happy in the final half hour?", "in the final half hour", (1800.0, HOUR)),
    ("when does she cry in the first minute?", "in the first minute", (0.0, 60.0)),
    ("how does she feel during the first 90 seconds?", "during the first 90 seconds", (0.0, 90.0)),
    ("when is she scared from 0:45:00 to 0:50:30?", "from 0:45:00 to 0:50:30", (2700.0, 3030.0)),
    ("how does she react in the past ten minutes?", "in the past ten minutes", (3000.0, HOUR)),
    ("when does she relax after the first half hour?", "after the first half hour", (1800.0, HOUR)),
    ("when is he angry after 12:30 but before 15:00?", "after 12:30 but before 15:00", (750.0, 900.0)),
    ("when is he angry in the last 10 minutes of the video?", "in the last 10 minutes of the video", (3000.0, HOUR)),
    ("when is she calm between the 3 and 5 minute marks?", "between the 3 and 5 minute marks", (180.0, 300.0)),
    ("when does she smile between 12:00-15:30?", "between 12:00-15:30", (720.0, 930.0)),
    ("when does she laugh in the last twenty-five minutes?", "in the last twenty-five minutes", (2100.0, HOUR)),
    ("when is he angry in the first half-hour?", "in the first half-hour", (0.0, 1800.0)),
    # forms the first held-out file showed (section 200): a part said first, open ranges, ordinals, compact hours
    ("First 30 secs, is she surprised?", "first 30 secs", (0.0, 30.0)),
    ("last quarter hour: does anyone seem disgusted?", "last quarter hour", (2700.0, HOUR)),
    ("second half of the meeting, when is everyone calm?", "second half of the meeting", (1800.0, HOUR)),
    ("up to the 3 minute mark, does he look freaked out", "up to the 3 minute mark", (0.0, 180.0)),
    ("from minute 7 onward, does he ever look sad?", "from minute 7 onward", (420.0, HOUR)),
    ("from 12 min till the end when does he look smug", "from 12 min till the end", (720.0, HOUR)),
    ("In the 34th minute, how does the striker feel?", "in the 34th minute", (1980.0, 2040.0)),
    ("between 1h and 1h30 when is the speaker nervous?", "between 1h and 1h30", (3600.0, 5400.0)),
    ("how do they feel 15-20 min in?", "15-20 min in", (900.0, 1200.0)),
    ("1:20:00 to 1:30:00 - any moments of joy?", "1:20:00 to 1:30:00", (4800.0, 5400.0)),
    # section 200: open ranges closed, "since", "up until", an ordinal "of the video"
    ("from 10 minutes up to 20 minutes, is he calm?", "from 10 minutes up to 20 minutes", (600.0, 1200.0)),
    ("since 10:00 until 20:00 is he calm?", "since 10:00 until 20:00", (600.0, 1200.0)),
    ("since the 12:30 mark, is he sad?", "since the 12:30 mark", (750.0, HOUR)),
    ("is he sad since 32:30?", "since 32:30", (1950.0, HOUR)),
    ("up until 12:30, is he ok?", "up until 12:30", (0.0, 750.0)),
    ("in the 34th minute of the video, how does he feel?", "in the 34th minute of the video", (1980.0, 2040.0)),
    ("when does she smile in the last 1h30?", "in the last 1h30", (1800.0, 2 * HOUR)),
    ("when does she smile after minute 3?", "after minute 3", (180.0, HOUR)),
    # forms the second held-out file showed: shares of the video, compact units, minutes by their place, more ranges
    ("emotions of the teacher during the 2nd half of the lecture", "during the 2nd half of the lecture",
     (1800.0, HOUR)),
    ("first third of the video \u2014 who looks scared?", "first third of the video", (0.0, 1200.0)),
    ("in the middle third, is she happy?", "in the middle third", (1200.0, 2400.0)),
    ("when does he cry in the last quarter of the video?", "in the last quarter of the video", (2700.0, HOUR)),
    ("in the latter half, is she calm?", "in the latter half", (1800.0, HOUR)),
    ("in the last 20% of the video, is she happy?", "in the last 20% of the video", (2880.0, HOUR)),
    ("is he happy at 22m-27m?", "at 22m-27m", (1320.0, 1620.0)),
    ("in min 25-30, irritated?", "in min 25-30", (1500.0, 1800.0)),
    ("during minute twelve, is he calm?", "during minute twelve", (660.0, 720.0)),
    ("how does she feel in the second hour?", "in the second hour", (HOUR, 2 * HOUR)),
    ("after 90 minutes 1-2 down, is the coach angry?", "after 90 minutes", (5400.0, 2 * HOUR)),  # not minutes 1-2
    # section 203: a point in time (+-30 s, +-60 s when approximate), an amount before or after a point, shares as
    # ranges or fractions, a part said after the question or after "check", three-part clock ranges anywhere
    ("at 14:00 exactly, what's her facial expression", "at 14:00 exactly", (810.0, 870.0)),
    ("is the contestant surprised when the result is read out near 58:30", "near 58:30", (3450.0, 3570.0)),
    ("around the 20 minute mark is the guest caught off guard?", "around the 20 minute mark", (1140.0, 1260.0)),
    ("the 30 min mark \u2014 is he crying?", "the 30 min mark", (1770.0, 1830.0)),
    ("1:02:03 - is the witness scared here?", "1:02:03", (3693.0, 3753.0)),
    ("is she calm about 5 minutes in?", "about 5 minutes in", (240.0, 360.0)),
    ("does the speaker fidget in the 10 min after 1:30:00", "in the 10 min after 1:30:00", (5400.0, 6000.0)),
    ("anyone sneering in the 10 min before the break at 30:00?", "in the 10 min before the break at 30:00",
     (1200.0, 1800.0)),
    ("between 40% and 60% of the lecture do students look lost", "between 40% and 60% of the lecture",
     (1440.0, 2160.0)),
    ("from 5 to 10 percent into the video does the child look sad", "from 5 to 10 percent into the video",
     (180.0, 360.0)),
    ("is the audience bored in the first 2/3 of the show", "in the first 2/3 of the show", (0.0, 2400.0)),
    ("in the last three quarters of the video, is she calm?", "in the last three quarters of the video", (900.0, HOUR)),
    ("any grossed out faces in the second third of the cooking show", "in the second third of the cooking show",
     (1200.0, 2400.0)),
    ("when does the vlogger look down, only check the last 20%", "only check the last 20%", (2880.0, HOUR)),
    ("since 33:20 who's been tearing up", "since 33:20", (2000.0, HOUR)),
    ("0:00\u20132:30 does the host look happy to be there", "0:00\u20132:30", (0.0, 150.0)),
    ("at around 14:00, is he angry?", "at around 14:00", (780.0, 900.0)),
    ("at minute 12, is he calm?", "at minute 12", (690.0, 750.0)),
    ("around the half hour mark, is she calm?", "around the half hour mark", (1740.0, 1860.0)),
    ("is she happy at 14:00 in the video?", "at 14:00 in the video", (810.0, 870.0)),
    ("12:00-14:00 is he sad", "12:00-14:00", (720.0, 840.0)),
    ("around the 1 hour 30 minute mark, is she crying?", "around the 1 hour 30 minute mark", (5340.0, 5460.0)),
    ("at the one and a half hour mark, is he tired?", "at the one and a half hour mark", (5370.0, 5430.0)),
    ("in the first hour and a half, is he calm?", "in the first hour and a half", (0.0, 5400.0)),
    ("in the last 2 minutes 30 seconds, is he calm?", "in the last 2 minutes 30 seconds", (3450.0, HOUR)),
    ("is she calm 5 minutes into the video?", "5 minutes into the video", (270.0, 330.0)),
    ("around 58:30 or so, is she upset?", "around 58:30 or so", (3450.0, 3570.0)),
    ("in the 5 minutes after 8:00, is she calm?", "in the 5 minutes after 8:00", (480.0, 780.0)),
    ("from 25 min onwards does the panel look cheerful?", "from 25 min onwards", (1500.0, HOUR)),
    ("shocked reactions 1:10:00-1:25:00?", "1:10:00-1:25:00", (4200.0, 5100.0)),
    ("last 20% of the vid - any happiness?", "last 20% of the vid", (2880.0, HOUR)),
    ("first 90s, does she look scared", "first 90s", (0.0, 90.0)),
    ("22m-27m anger from the caller?", "22m-27m", (1320.0, 1620.0)),
    ("show me moments of contempt during minute 12", "during minute 12", (660.0, 720.0)),
    ("when does she sigh in the second minute?", "in the second minute", (60.0, 120.0)),
    ("sixth minute, happy or not?", "sixth minute", (300.0, 360.0)),
    ("3rd minute: is the kid surprised or scared", "3rd minute", (120.0, 180.0)),
    ("at 14:20-14:50, what emotion is the interviewer showing", "at 14:20-14:50", (860.0, 890.0)),
    ("tell me when the hosts laugh, 30:00 onwards", "30:00 onwards", (1800.0, HOUR)),
    ("1h05 to 1h20: when does the judge seem annoyed", "1h05 to 1h20", (3900.0, 4800.0)),
    ("min 25-30 is the prof irritated", "min 25-30", (1500.0, 1800.0)),
    ("first quarter of an hour: is she calm?", "first quarter of an hour", (0.0, 900.0)),
])
def test_a_named_part_of_the_video_is_read_with_its_words(question, phrase, window):
    ask = asked_window(question)
    duration = 2 * HOUR if window[1] > HOUR else HOUR
    assert ask is not None and ask.phrase == phrase and ask.resolve(duration) == window
    rest = without_window(question, ask)
    assert phrase not in rest.lower() and len(rest) < len(question) and rest.endswith("?") == question.endswith("?")
    assert not rest.startswith((",", " ")) and "  " not in rest


@pytest.mark.parametrize("question", [
    "when is she happy?", "when does she laugh after he leaves?", "when does she smile after 3?",
    "when does he smile for the first time?", "when is she between a rock and a hard place?",
    "when does he calm down before an interview?", "when is the last time he gets angry?",
    "I remember a referee making a terrible call in the last minute, felt really maddening",  # the scene's minute
    "how does she feel before a second date?", "when is she upset before a minor setback?",  # no time: words
    "when does he gasp after a secret is told?", "when does he react after a minute of silence?",  # a length
    "when is he nervous in the last minute of his speech?", "how happy is she in the first half of the game?",
    "when is she happy but not in the first half?", "when is she sad except in the last ten minutes?",  # not there
    "is he happier in the first half or the second half?",  # two parts compared
    "when is she scared from 15:00 until 12:00?", "when does she cry after 5:75?",  # no such range, no such time
    "how does he feel after 5:30 in the morning?", "when is she tired before 7:00 am?",  # times of day
    "when is she happy from time to time?", "when does she cry until the end?",
    "last time she smiled, how did she feel?", "first impressions: is he nervous?", "when is the team 2-1 down?",
    "she went from 0 to 100, when?", "when is she happy from 9 to 5?", "when does he say it takes 5-10 minutes?",
    "5-10 minutes in the oven, does the chef look stressed?", "he walked 3 to 5 minutes in the rain",  # lengths
    "she can hold her breath for up to 2 minutes, is she scared?", "the bus is up to an hour late",
    "he works 9:00 to 17:00, is he tired?", "when he reads John 3:16-3:18", "last minute changes upset him?",
    "first hour is free, is she happy about that?", "second half substitution, is the coach angry?",
    "has she been crying since 10 minutes?", "from 5 minutes on the clock, is he nervous?",
    "in the 34th minute of the second half, is he tired?", "is he sad from 12:30 to the end of his speech?",
    "first half hour of his speech, is he nervous?", "is he happier in the first half, or the second?",
    "how did music feel in the 90s?", "from the 60s to the 80s, were people happier?",  # decades
    "she was in the top 20% of her class, is she proud?", "in the second 20%, is he calm?",  # no share of the video
    "in the first quarter of the game, is he nervous?", "the first third of his speech, is he nervous?",
    "when he ran 100m-200m was he tired?", "a 5s-10s clip of her laughing", "he stands 3m away, is he scared?",
    "in minute 3 of his speech is he calm?", "the sixth minute of extra time, is he tired?",
    "he is 5 minutes onwards from the station", "is she 2nd half of her twenties?",
    # the re-read of section 202's forms: ages, decades, distances, counts, a game's or a year's quarter, lengths
    "in her 20s-30s, was she happy?", "from his 20s onwards, is he calmer?", "late 90s onwards, was music sadder?",
    "after 2m views, is she happy?", "in the final 50m, does the swimmer look determined?",
    "the tower is 20m-30m, scared?", "he fell 5m-10m - is he hurt?", "does he flinch from 5m to 10m?",
    "does he cry for 10 minutes 3 to 4 times a day?",
    "in minute 3.5, happy?", "in the 4th quarter, is the crowd happy?", "over the past quarter, is the CFO confident?",
    "in the 3rd quarter the company lost money, is he upset?", "5 minutes to 10 minutes - how long does he wait?",
    "30 seconds to a minute - how long until he calms down?", "at 6:00-7:00 every day he jogs, is he happy?",
    # section 203: times of day said, due or scheduled; lengths; a share of something else
    "when the kid says school starts at 8:15, does the dad look annoyed", "he says 'meet me at 5:30' - is he nervous?",
    "she wants to leave at 5:30 sharp, is she stressed?", "is he tired at 6:00 every day?",
    "the train leaves at 14:20, is she anxious?", "between 20% and 30% of the votes, is he happy?",
    "it lasts about 10 minutes, is she bored?", "does it take around 20 minutes, is he impatient?",
    "she finished the race at 27m 30s, is she proud?", "the first 2/3 of the pie is gone, is he happy?",
    "the party is at 8:00, is he excited?", "at 9:30 she has a meeting, is she nervous?", "5m to 8m deep, scared?",
    "is she upset about the 5:30 deadline?", "bake it for about 5 minutes in the oven, is he calm?",
    "at 5m deep, is the diver scared?", "in the last 1/4 mile, is she tired?", "the tip is between 15 and 20 percent",
    "during the last three quarters, is the CEO happy?", "9:00-5:00 job, is he bored?", "at 12:00 noon, is he hungry?",
    "at the 20 minute mark of his workout, tired?", "the 10 minutes before the meeting at 9:30, is she nervous?",
    "she works from 9:00 to 17:00 each day, tired?", "in the first half of the set, is the drummer excited?",
    "why is she stressed? last minute", "9:30 to 10:30 she has a meeting, nervous?",
    "is he sad since 12:30?", "he's been waiting since 6:15, is he annoyed?",  # since a time of day (section 203)
    "she hit the 10-minute mark on her plank, is she proud?", "they watch the first half together, is he bored?",
    "she must submit it before the 5:30 deadline, is she stressed?", "after the 7:30 meeting, is he tired?",
    "he says 'after 10 minutes we leave' - is he sad?",
    "between 40% and 60% of the meeting attendees voted yes, happy?", "in the first half of the video game, tense?",
    "from 2 minutes to 5 minutes of yelling, is she upset?", "she ran the 5k in about 24:30, is she proud?",
    "with about 35:00 left in the game, is he nervous?", "when her phone is in the last 10%, does she panic?",
    "she pays for the first 50%, is she annoyed?", "at 7:00 does he usually wake up grumpy?",
    "he gave up 10 minutes in, is he disappointed?", "in the first half of the show's run, was the actor happy?",
    "she must be home no later than 10:30, is she anxious?", "it's twenty minutes past the hour, is he late?",
])
def test_a_question_that_names_no_time_names_no_part(question):
    assert asked_window(question) is None and without_window(question, None) == question


@pytest.mark.parametrize(("question", "phrase", "share"), [
    ("towards the end, when does she look heartbroken?", "towards the end", (0.8, 1.0)),
    ("near the end of the interview, does the guest look happy?", "near the end of the interview", (0.8, 1.0)),
    ("early on in the vlog, is she happy", "early on in the vlog", (0.0, 0.2)),
    ("about halfway through, when does he look scared?", "about halfway through", (0.4, 0.6)),
    ("somewhere in the middle, who rolls their eyes", "somewhere in the middle", (1 / 3, 2 / 3)),
    ("at the very start is the host nervous?", "at the very start", (0.0, 0.05)),
    ("in the closing minutes when does the coach look devastated", "in the closing minutes", (1 - 300 / HOUR, 1.0)),
    ("in the last few minutes, is the mood calm", "in the last few minutes", (1 - 300 / HOUR, 1.0)),
    ("before the halfway point, is she nervous?", "before the halfway point", (0.0, 0.5)),
    ("after halfway, does he get angry?", "after halfway", (0.5, 1.0)),
    ("last few minutes of the video, is he crying?", "last few minutes of the video", (1 - 300 / HOUR, 1.0)),
    ("at the exact midpoint, is he frustrated?", "at the exact midpoint", (0.4, 0.6)),
    ("later on in the podcast does the guest get angry?", "later on in the podcast", (0.5, 1.0)),  # section 204's read
    ("during the latter part of the livestream, is he angry?", "during the latter part of the livestream", (0.5, 1.0)),
])
def test_a_part_named_by_its_position_alone_is_read_as_a_share_of_the_video(question, phrase, share):
    ask = asked_window(question)
    assert ask is not None and ask.vague and ask.phrase == phrase
    assert ask.resolve(HOUR) == (round(share[0] * HOUR, 3), round(share[1] * HOUR, 3))
    assert phrase not in without_window(question, ask).lower()


@pytest.mark.parametrize("question", [
    "at the end of the day, is she happy with her job?", "in the middle of an argument, does he stay calm?",
    "early on in her career, was she nervous?", "towards the end of his life, was he sad?",
    "halfway through his sentence she interrupts, is he annoyed?", "late in life he found love, is he happy?",
    "near the end of the race, is the runner exhausted?", "in the middle of the night, is the baby crying?",
    "by the end of the week, is he stressed?", "in the closing minutes of the match, is the keeper tense?",
    "when they meet in the middle, is he relieved?", "it's the beginning of the end, is she sad?",
    # the review of section 204's reading: comparisons and changes, places, states, other videos, hyphens, lengths
    "is she happier at the start or at the end?", "is she nervous at the start and relaxed at the end?",
    "she starts off nervous but at the end is she confident?", "compared to the start, is she happier at the end?",
    "does she get happier towards the end?", "who is sitting in the middle?", "the girl in the middle, is she sad?",
    "the man at the end, is he angry?", "can they meet you somewhere in the middle?", "are we halfway?",
    "is he halfway there?", "is she happy at the end-of-year party?", "at the end of the previous video he cried, why?",
    "in the documentary about the battle of midway, is the veteran sad?", "who's that at the end?",
    "for the last few minutes he's been crying, why?",
])
def test_position_words_about_something_else_name_no_part(question):
    assert asked_window(question) is None


def test_a_vague_part_of_a_short_video_is_grown_to_hold_some_clips_and_words_about_else_do_not_block_it():
    assert asked_window("the wide shot of the stage at the very start").resolve(10.0) == (0.0, 10.0)  # not 0-0.5 s
    assert asked_window("in the middle, is she sad?").resolve(60.0) == (15.0, 45.0)  # 20 s grown to 30 s
    assert asked_window("at the very start, is he nervous?").resolve(HOUR) == (0.0, 180.0)  # a long video: the share
    assert asked_window("in the last few seconds, is he sad?").resolve(HOUR) == (3570.0, HOUR)  # 30 s, not 5
    # "get" without a comparative is no change; "meeting" is a video word, not "meet"
    assert asked_window("towards the end, does she get her award?").resolve(HOUR) == (2880.0, HOUR)
    assert asked_window("does the ceo look annoyed in the meeting near the end?").resolve(HOUR) == (2880.0, HOUR)


def test_a_window_read_is_scored_against_the_writers_as_the_held_out_rules_say():
    from studies.window_questions import window_right

    assert window_right((600.0, 900.0), [600.5, 899.2]) and not window_right((600.0, 900.0), [600.0, 902.0])
    assert window_right(None, None) and not window_right(None, [0.0, 10.0]) and not window_right((0.0, 1.0), None)
    # a point: holds the writer's middle, both at most 120 s wide
    assert window_right((810.0, 870.0), [825.0, 855.0], point=True)
    assert not window_right((810.0, 870.0), [825.0, 855.0])  # the same without point scoring
    assert not window_right((810.0, 870.0), [700.0, 1000.0], point=True)  # the writer's stretch too wide for a point
    assert not window_right((810.0, 870.0), [880.0, 900.0], point=True)  # the writer's middle outside
    # a vague part: tIoU >= 0.5
    assert window_right((2880.0, 3600.0), [3000.0, 3600.0], vague=True)  # tIoU 0.833
    assert not window_right((0.0, 840.0), [0.0, 300.0], vague=True)  # tIoU 0.357


def test_a_part_named_by_its_position_is_said_as_read_in_the_answer():
    said = window_warnings("towards the end, when does she look heartbroken?", (2880.0, 3600.0), HOUR)
    assert said == ['"towards the end" was read as 2880-3600 s of the video; ask without it to search the whole video']
    assert window_warnings("in the last ten minutes, is he sad?", (3000.0, 3600.0), HOUR) == []  # said in times
    assert window_warnings("towards the end, is she happy?", (0.0, 10.0), 10.0) == [  # a 10 s video: all of it
        '"towards the end" names no part of a video this short (10.0 s); the whole video was searched']


def test_a_part_is_clipped_to_the_video_and_one_outside_it_is_none():
    assert asked_window("when is he sad in the last ten minutes?").resolve(300.0) == (0.0, 300.0)
    assert asked_window("when is he sad after 12:30?").resolve(300.0) is None
    assert asked_window("at 0:10, is he sad?").resolve(300.0) == (0.0, 40.0)  # a point's window clipped too
    assert WindowAsk("in the first half", fraction=(0.0, 0.5)).resolve(10.0) == (0.0, 5.0)
    assert time_seconds("1:02:03") == (3723.0, True) and time_seconds("half an hour") == (1800.0, True)
    assert time_seconds("3") is None and time_seconds("3", 60.0) == (180.0, False)


def test_the_words_of_a_part_are_taken_out_of_the_question_wherever_they_stand():
    ask = asked_window("Over the past 5 minutes, when is he tense?")
    assert ask.resolve(HOUR) == (3300.0, HOUR)
    assert without_window("Over the past 5 minutes, when is he tense?", ask) == "when is he tense?"
    said_after = "are they smug? last quarter of the podcast"  # a part said after the question, as its own sentence
    ask = asked_window(said_after)
    assert ask.resolve(HOUR) == (2700.0, HOUR) and without_window(said_after, ask) == "are they smug?"


def test_a_part_outside_the_video_is_said_in_a_warning():
    said = window_warnings("when is he sad after 12:30?", None, 300.0)
    assert said == [('the question names "after 12:30", which lies outside this 300.0 s video; the whole video was '
                     "searched")]
    assert window_warnings("when is he sad after 2:30?", (150.0, 300.0), 300.0) == []
    assert window_warnings("when is he sad?", None, 300.0) == []
    assert window_warnings("when is he sad in the first 0 seconds?", None, 300.0) == [
        'the question names "in the first 0 seconds", which holds no time of this video; the whole video was searched']


def test_a_bench_question_names_the_third_of_its_video_that_holds_its_first_moment():
    from evals.bench import BenchItem
    from studies.window_questions import windowed

    item = BenchItem.model_validate({"id": "v-anger", "video": "v.mp4", "query": "when does she lose her temper?",
                                     "moments": [{"start_s": 100.0, "end_s": 104.0, "emotion": "anger"},
                                                 {"start_s": 10.0, "end_s": 14.0, "emotion": "anger"}]})
    got = windowed(item, 142.0)  # thirds 0-47, 47-95, 95-142: the first moment's middle (102 s) in the last
    assert got["id"] == "v-anger-window" and got["query"] == "when does she lose her temper in the last 47 seconds?"
    assert [m["start_s"] for m in got["moments"]] == [100.0]  # the moment outside the named part no longer counts
    ask = asked_window(got["query"])
    assert ask is not None and ask.resolve(142.0) == (95.0, 142.0)
    middle = windowed(item.model_copy(update={"moments": item.moments[1:]}), 30.0)  # 12 s of 30: the middle third
    assert middle["query"] == "when does she lose her temper between 0:10 and 0:20?"
    assert asked_window(middle["query"]).resolve(30.0) == (10.0, 20.0)
