"""The words a part of a video is said in: numbers, units, clock times, amounts, points, the pattern of each way of
naming a part (``tools.signals.time_words`` reads them), and the pure functions that turn a matched time into
seconds. Every pattern reads lower-cased text."""

from __future__ import annotations

import re

#: Number words a time may be written with ("ten minutes", "the last five seconds", "twenty-five minutes").
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES)} | _TENS | {
    f"{t}{sep}{o}": v + i for t, v in _TENS.items() for i, o in enumerate(_ONES[1:10], 1) for sep in ("-", " ")}
#: Ordinal words up to the ninety-ninth ("the sixth minute", "the twenty-first minute").
_ORD_ONES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth")
_ORD_TENS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
             "eightieth": 80, "ninetieth": 90}
ORDINAL_WORDS = {w: i for i, w in enumerate(_ORD_ONES, 1)} | _ORD_TENS | {
    f"{t}{sep}{o}": v + i for t, v in _TENS.items() for i, o in enumerate(_ORD_ONES[:9], 1) for sep in ("-", " ")}
#: Seconds per unit of a time.
UNIT_S = {"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "m": 60, "hour": 3600, "hr": 3600}
#: The parts of a whole a question may name ("the first third", "the last quarter"): how many make the whole.
FRACTIONS = {"half": 2, "third": 3, "quarter": 4}
#: Words that take a part from the start of the video ("the first ten minutes", "the opening third").
FROM_START = ("first", "1st", "opening")
#: Words that take a part from the end of the video ("the last ten minutes", "the latter half").
FROM_END = ("last", "final", "past", "closing", "latter")
#: Which share: its place from the start (the last is the whole's count, the middle third the second).
FRACTION_PLACE = dict.fromkeys(FROM_START, 1) | {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}

NUM = r"\d+(?:\.\d+)?|" + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
ORD = r"\d+(?:st|nd|rd|th)|" + "|".join(sorted((re.escape(w) for w in ORDINAL_WORDS), key=len, reverse=True))
UNIT = r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
#: A clock time on the video's clock: M:SS or H:MM:SS, minutes and seconds under 60; not a time of day ("5:30 in the
#: morning", "7:00 pm", "at 3 o'clock").
CLOCK = (r"\d{1,2}:[0-5]\d(?::[0-5]\d)?(?!\d)(?!:\d)"
         r"(?!\s*(?:am|pm|a\.m|p\.m|o'clock|noon|midnight|hrs|hours|in\s+the\s+(?:morning|afternoon|evening)"
         r"|at\s+night)\b)")
#: A clock time that cannot be a time of day: hours, minutes and seconds ("1:05:00"), or 24 minutes or more ("58:30").
VIDEO_CLOCK = r"(?:\d{1,2}:[0-5]\d:[0-5]\d|(?:2[4-9]|[3-9]\d):[0-5]\d)(?![\d:])"
#: Compact hours: "1h", "1h30", "1h 30m".
HOURS = r"\d+h(?:\d{1,2}(?:m|min)?|\s+\d{1,2}(?:m|min)\b)?\b(?!\s+\d)"
#: Compact minutes and seconds, read only where a distance, a count, an age or a decade cannot stand: in a range
#: that begins a clause ("22m-27m anger from the caller?") or ends one after "at", "during", "around", "within" or
#: "between" ("is he happy at 22m-27m?"; not "the tower is 20m-30m", "in her 20s-30s"); compact seconds also after
#: "the first / last" ("first 90s, ..."; "the final 50m" is a swim).
COMPACT = r"(?:\d{1,2}(?:\.\d+)?m|\d{1,3}(?:\.\d+)?s)(?![\w.])"
COMPACT_S = r"\d{1,3}(?:\.\d+)?s(?![\w.])"
#: An amount in two parts: "1 hour 30 minutes", "an hour and 20 minutes", "2 minutes 30 seconds", "one and a half
#: hours", "an hour and a half".
COMPOUND = (rf"(?:(?:{NUM})|an?)\s*-?\s*(?:hours?|hrs?)\s+(?:and\s+)?(?:{NUM})\s*-?\s*(?:minutes?|mins?)\b"
            rf"|(?:(?:{NUM})|an?)\s*-?\s*(?:minutes?|mins?)\s+(?:and\s+)?(?:{NUM})\s*-?\s*(?:seconds?|secs?)\b"
            rf"|(?:{NUM})\s+and\s+a\s+half\s+(?:hours?|minutes?)\b|(?:an?\s+)?(?:hour|minute)\s+and\s+a\s+half\b")
#: An amount: a number and its unit ("ten minutes", "90 secs", "an hour"; not "a second" nor "a min", which are an
#: ordinal and a word's start), an amount in two parts, compact hours, half or a quarter of an hour.
AMOUNT = (rf"(?:{COMPOUND}|{HOURS}|(?:{NUM})(?:\s*|-){UNIT}|an?\s+(?:minute|hour)\b"
          rf"|half(?:\s+an?\s+|\s*-\s*|\s+)hour\b|an?\s+half\s+hour\b|a\s+quarter(?:\s+of\s+an|-)?\s*hour\b"
          rf"|quarter(?:\s+of\s+an|-|\s+)\s*hour\b)")
#: "of the video" and the like after a part, read with it; any other "of" after a time makes it a length ("after a
#: minute of silence", "in the last minute of his speech"), not a place.
VIDEO_WORDS = (r"(?:video|vid|clip|film|movie|recording|episode|footage|show|programme|program|meeting|interview|call|"
               r"talk|lecture|session|broadcast|stream|livestream|hearing|podcast|webinar|panel|debate|concert|"
               r"performance|vlog|discussion|presentation|keynote|seminar|conference|ceremony|sermon|"
               r"documentary|tutorial)\b")
#: "of the video", "of the cooking show" (one word before the noun): a game, a match, a set or a class is not the
#: video ("in the first half of the game": its halves are not the video's; "the first 20% of the class" are people).
#: A video named with one word before its noun at most: "the video", "the cooking show".
THE_VIDEO = rf"the\s+(?:[a-z]+\s+)?{VIDEO_WORDS}"
#: After a video word: the question goes on, not another noun it heads ("the meeting attendees", "the video game",
#: "the talk radio era", "the show's run" are not the video).
_NOT_HEAD = (r"(?=\s*(?:$|[,:;.?!\-\u2013\u2014])|\s+(?:does|do|did|is|are|was|were|can|could|will|would|has|have|"
             r"had|who|whom|whose|what|when|how|why|where|which|any|anyone|anybody|someone|somebody|everyone|and|but|"
             r"so|then|while|as|if|he|she|they|we|i|you|it|there|people|the|a|an|his|her|their)\b)")
OF_VIDEO_SAID = rf"\s+of\s+{THE_VIDEO}{_NOT_HEAD}"
OF_VIDEO = rf"(?:{OF_VIDEO_SAID})?"
NOT_OF = r"(?!\s+of\b)"
#: Where a part said first ends: a clause mark ("first 30 secs, is she ...", "last quarter hour: ...").
MARK = r"(?=\s*[,:;.\-\u2013\u2014])"
#: Where a clause ends.
_END = r"(?=\s*(?:$|[,:;.?!\-]))"
#: Not a time of day's words after a time ("from 9:00 to 17:00 each day").
_NOT_DAY = r"(?!\s+(?:every|each|daily|sharp|today|tonight|tomorrow|yesterday|on\s+(?:\w+days?|weekends?))\b)"
#: What may follow a part said inside a question: a clause's end, or the question itself ("at 27m does she nod?").
_NEXT = (r"(?=\s*(?:$|[,:;.?!\-\u2013\u2014]|(?:does|do|did|can|could|will|would|has|have|had|who|"
         r"whom|whose|what|when|how|why|where|which|any|anyone|anybody|someone|somebody|everyone)\b"
         r"|(?:is|are|was|were)\s+(?:he|she|they|it|there|the|anyone|anybody|someone|everyone|this|that|his|her|"
         r"their)\b))")
#: A point on the video's clock, not a length: a clock time, "the 5 minute mark", "minute 3" ("the" not before a bare
#: clock time: "before the 5:30 deadline" is a time of day).
_THE = rf"(?:the\s+(?!{CLOCK}(?!\s+marks?\b)))?"
POINT = rf"{_THE}(?:{CLOCK}|(?:{NUM})(?:\s*|-)(?:minute|min|hour|second)s?\s+marks?|minute\s+(?:{NUM})\b)"
#: The same, where it cannot be a time of day: a clock time past 24 minutes or in hours, a mark, "minute 3".
POINT_NOT_DAY = (rf"(?:the\s+)?(?:{VIDEO_CLOCK}|(?:(?:{NUM})(?:\s*|-)(?:minute|min|hour|second)s?|{CLOCK}|{HOURS})"
                 rf"\s+marks?|minute\s+(?:{NUM})\b)")
#: One time: a point, an amount, or a bare number (read only beside another time's unit).
TIME = rf"{_THE}(?:{CLOCK}|{AMOUNT}|minute\s+(?:{NUM})\b|(?:{NUM})\b(?!:)(?!\s*-?\s*{UNIT}))(?:\s+marks?)?"

BETWEEN = re.compile(rf"\b(?:between|from|since)\s+(?:minutes?\s+)?({TIME})(?:\s+on)?"
                     rf"(?:\s+(?:and|to|until|till|up\s+to|up\s+until|up\s+till)\s+|\s*[-\u2013]\s*)"
                     rf"({TIME}){OF_VIDEO}{NOT_OF}(?:\s+in{_END})?{_NOT_DAY}")
_SPAN_WORDS = r"(first|1st|last|final|past|second|2nd|third|3rd|fourth|4th|middle|opening|closing|latter)\s+"
#: A share said as a number: "20%", "10 percent", "2/3", "two thirds"; read only when "of the video" or the end of a
#: clause or the question follows ("the last 20%, ...", not "the last 1/4 mile", "the last three quarters" of a year).
SHARE = (r"(?:\d+(?:\.\d+)?\s*(?:%|percent\b|per\s+cent\b)|\d/\d\d?\b|two[\s-]thirds\b"
         rf"|(?:two|three)[\s-]quarters\b(?={OF_VIDEO_SAID}))(?={OF_VIDEO_SAID}|{_NEXT})")
#: The leads after which a share said as a number must be said to be the video's ("in the last 10%" of a battery, "for
#: the first 50%" of a loan); said first, or after "check" / "watch", it is the video's.
SHARE_ASIDE = r"(?:in|during|within|over|for)\b"
_SPAN_AMOUNT = (rf"({COMPOUND}|(?:{NUM})(?:\s*|-){UNIT}|{HOURS}|{COMPACT_S}|{SHARE}"
                rf"|(?:half|1/2)(?:\s+an?\s+|\s*-\s*|\s+)hour\b|quarter(?:\s+of\s+an\s+|\s+|-)hour\b"
                rf"|hour\b|minute\b|second\b"
                rf"|(?:half|third|quarter)\b(?!\s*-?\s*(?:of\s+)?(?:an?\s+)?hour))")
#: "in the last ten minutes", "during the 2nd half", "over the first third", "for the last 20%", "only check the last
#: 20%", "watch the first 90s".
_SPAN_LEAD = (r"(?:in|during|within|over|for"
              r"|(?:(?<=^)|(?<=[,;:?.!]\s)|\b(?:only|just|please)\s+)"
              r"(?:check|watch|search|scan|skim|view|look\s+(?:at|through)|go\s+through))")
SPAN = re.compile(rf"\b{_SPAN_LEAD}\s+(?:only\s+)?the\s+{_SPAN_WORDS}{_SPAN_AMOUNT}{OF_VIDEO}{NOT_OF}")
#: The same said first, before a clause mark ("first 30 secs, is she surprised?"; "last minute changes" is no part),
#: or after the question as a sentence of its own that says whose part it is ("... coming true? last quarter of the
#: podcast", "are they smug? the last 10 minutes"; not "why is she stressed? last minute").
OPENING = re.compile(rf"(?:^(?:the\s+)?{_SPAN_WORDS}{_SPAN_AMOUNT}{OF_VIDEO}{MARK}"
                     rf"|(?<=[?.!]\s)(?:the\s+)?{_SPAN_WORDS}{_SPAN_AMOUNT}{OF_VIDEO_SAID}$"
                     rf"|(?<=[?.!]\s)(?:the\s+)?(first|last|final|past|opening|closing)\s+((?:{NUM})(?:\s*|-){UNIT}"
                     rf"|{HOURS}|{COMPACT_S}|{SHARE}){OF_VIDEO}$)")
AFTER = re.compile(rf"(?<!\bthe\s)(?<!minutes\s)(?<!minute\s)(?<!half\s)(?<!quarter\s)\b(?:after|past|beyond"
                   rf"|(?<!\bno\s)later\s+than)\s+(?:the\s+first\s+(?=(?:{NUM}|half|hour|"
                   rf"minute)))?({TIME}|(?:the\s+)?(?:hour|minute)\b(?!\s+(?:{NUM})\b)){OF_VIDEO}{NOT_OF}")
#: "until" / "before" a time; "up to" only before a point ("up to the 3 minute mark": "up to 2 minutes" is a length).
BEFORE = re.compile(rf"\b(?:(?:before|until|till|prior\s+to|earlier\s+than)\s+({TIME})"
                    rf"|up\s+(?:to|until|till)\s+({POINT})){OF_VIDEO}{NOT_OF}")
#: From a point on: "from minute 7 onward", "from 12 min till the end (of the video)", "30:00 onwards", "(ever) since
#: 33:20 who's ...", "since the 12:30 mark" (a point that cannot be a time of day: not "since 6:15 she's been
#: waiting", "since 12:30"); a bare amount after "since" is a length ("since 10 minutes").
ONWARD = re.compile(rf"\b(?:from\s+({TIME})(?:\s+on{_END}|\s+(?:onwards?|forward){_NEXT}"
                    rf"|\s+(?:till|to|until)\s+the\s+end(?!\s+of\b(?!\s+{THE_VIDEO}))"
                    rf"(?:{OF_VIDEO}))"
                    rf"|(?:ever\s+)?since\s+({POINT_NOT_DAY}){NOT_OF})"
                    rf"|(?:^|(?<=\s))({POINT}|{AMOUNT})\s+onwards?{_END}")
#: One minute or hour named by its place: "in the 34th minute", "during the sixth minute", "sixth minute, ...", "in
#: the second hour", "during minute 12" (the twelfth: 11:00-12:00, as a match report counts; "after minute 12" and
#: "min 12-13" read minute 12 as the point 12:00).
ORDINAL = re.compile(rf"\b(?:in|during|within)\s+the\s+({ORD})\s+(?:minute|hour)\b(?!\s+and\s+a\s+half)"
                     rf"{OF_VIDEO}{NOT_OF}"
                     rf"|^(?:the\s+)?({ORD})\s+(?:minute|hour){OF_VIDEO}{MARK}"
                     rf"|\b(?:in|during|within)\s+minute\s+({NUM})(?![\w.]){OF_VIDEO}{NOT_OF}")
#: A clock time in hours, minutes and seconds ("1:10:00"): the video's clock wherever it stands.
_CLOCK3 = r"\d{1,2}:[0-5]\d:[0-5]\d(?![\d:])"
#: Where a range of compact amounts or "min N-M" may stand: at the start of a clause, or after a word that places it.
_RANGE_AT = r"(?:^|(?<=[,:;]\s)|\b(?:at|during|around|within|between|in)\s+)"
#: A range with no "between" / "from": two clock times or compact hours said first, joined by "to" or a dash
#: ("1:20:00 to 1:30:00 - any moments of joy?", "1h05 to 1h20: ..."; not "5 minutes to 10 minutes - how long ...",
#: a length); two clock times after "at" ("at 14:20-14:50"; not "at 6:00-7:00 every day", a time of day); two
#: compact amounts joined by a dash at the start of a clause ("22m-27m anger from the caller?") or at its end after a
#: word that places them ("is he happy at 22m-27m?"; not "a 5s-10s clip", "the tower is 20m-30m"); "min 25-30" there
#: too (not "for 10 minutes 3 to 4 times a day"); anywhere two amounts and "in" that ends a clause ("how do they feel
#: 15-20 min in?"; "5-10 minutes in the oven" is a length).
RANGE = re.compile(rf"^({CLOCK}|{HOURS})\s*(?:\bto\b|[-\u2013])\s*({CLOCK}|{HOURS}){MARK}"
                   rf"|^({CLOCK})\s*(?:\bto\b|[-\u2013])\s*({CLOCK}){_NEXT}"
                   rf"|(?<=\s)({_CLOCK3})\s*(?:\bto\b|[-\u2013])\s*({_CLOCK3})"
                   rf"|\bat\s+({CLOCK})\s*(?:\bto\b|[-\u2013])\s*({CLOCK})"
                   rf"(?!\s+(?:on|every|each|daily|weekdays|in\s+the\s+(?:morning|afternoon|evening))\b)"
                   rf"|(?:^|(?<=[,:;]\s))({COMPACT})\s*[-\u2013]\s*({COMPACT})"
                   rf"|\b(?:at|during|around|within|between)\s+({COMPACT})\s*[-\u2013]\s*({COMPACT}){_END}"
                   rf"|{_RANGE_AT}(?:mins?|minutes?)\s+(\d+)\s*(?:\bto\b|[-\u2013])\s*(\d+)(?![\w.]){OF_VIDEO}{NOT_OF}"
                   rf"|(?:^|(?<=\s))({TIME})\s*(?:\bto\b|[-\u2013])\s*({TIME})\s+in{_END}")
#: Two shares of the video, said to be the video's: "between 40% and 60% of the lecture", "from 5 to 10 percent into
#: the video" (not "between 15 and 20 percent" of a bill).
SHARE_RANGE = re.compile(rf"\b(?:between|from)\s+(\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)?\s*(?:and|to|-|\u2013)\s*"
                         rf"(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)"
                         rf"\s+(?:of|into|through)\s+{THE_VIDEO}{_NOT_HEAD}")
#: An amount before or after a point: "in the 10 min after 1:30:00", "the 2 minutes before the big goal at 30:00"
#: ("in the 5 minutes after 8:00" as "after 8:00" is read; an event's time, "the <event> at T", only where it cannot
#: be a time of day: not "the 10 minutes before the meeting at 9:30").
RELATIVE = re.compile(rf"\b(?:(?:in|during|within|for|over)\s+)?the\s+({AMOUNT})\s+(after|following|before|leading"
                      rf"\s+up\s+to|prior\s+to)\s+(?:the\s+(?:[a-z]+\s+){{1,3}}at\s+({VIDEO_CLOCK})|({POINT}))"
                      rf"{OF_VIDEO}{NOT_OF}")
#: Words that make a point in time approximate ("around 1:05:00", "near 58:30").
APPROX = r"around|near|about|roughly|approximately|circa|close\s+to"
_LEAD = rf"(?:(?:right|just|somewhere)\s+)?(?:at\s+)?(?:(?:exactly|precisely)\s+)?(?:(?:{APPROX})\s+)?(?:at\s+)?"
_ISH = (r"(?:\s*-?\s*ish\b|\s+(?:exactly|precisely|on\s+the\s+clock|or\s+so)\b)?"
        rf"(?:\s+(?:in|into)\s+{THE_VIDEO})?")
#: A point in time, read where it cannot be a time of day: a mark ("at the 10-minute mark", "around the 20:00
#: mark"), an amount in ("about 5 minutes in, ..."; not "5 minutes in the oven"), a clock time that cannot be a time
#: of day after "at" or "around" ("near 58:30", "around 1:05:00"), a clock time said to be the video's ("at 14:00 in
#: the video"), or a clock time said first before a clause mark or the question ("at 14:00 exactly, what's her
#: expression", "1:02:03 - is the witness scared?"; not "9:00-5:00 job", "at 9:30 she has a meeting"). A clock time
#: inside a question ("the party is at 8:00") is a time of day; compact minutes ("at 27m") are read as no point (a
#: diver's depth).
_MARK_TIME = (rf"(?:the\s+)?(?:{COMPOUND}|(?:{NUM})(?:\s*|-){UNIT}\.?|half(?:\s+an?)?[\s-]hour|{CLOCK}|{HOURS})"
              rf"\s+marks?")
_IN_AMOUNT = rf"{COMPOUND}|(?:{NUM})(?:\s*|-){UNIT}|{HOURS}|an?\s+(?:minute|hour)|half\s+an\s+hour"
_AT = rf"(?:(?<=^)|\b(?=(?:right|just|somewhere|at|exactly|precisely|{APPROX})\s))"
AT_POINT = re.compile(rf"{_AT}{_LEAD}({_MARK_TIME}){_ISH}{NOT_OF}"
                      rf"|\b(?:at|{APPROX})\s+(?:(?:{APPROX})\s+)?(minute\s+\d+(?![\w.])){_ISH}{NOT_OF}"
                      rf"|(?:^|(?<=[,;:]\s)|\b(?=(?:at|{APPROX})\s)){_LEAD}({_IN_AMOUNT})\s+in{_NEXT}"
                      rf"|\b{_LEAD}({_IN_AMOUNT})\s+into\s+{THE_VIDEO}"
                      rf"|(?<!\bin\s)(?<!\bwithin\s)(?<!\bfor\s)(?<!\bunder\s)\b(?:at\s+|(?:{APPROX})\s+)"
                      rf"(?:(?:{APPROX})\s+|at\s+)?({VIDEO_CLOCK}){_ISH}{NOT_OF}(?!\s+(?:left|remaining|to\s+go)\b)"
                      rf"|\b{_LEAD}({CLOCK}|{HOURS})\s+(?:in|into|of)\s+{THE_VIDEO}"
                      rf"|^{_LEAD}({CLOCK}|{HOURS}|{COMPACT_S}){_ISH}(?!\s*[-\u2013]\s*\d){MARK}"
                      rf"|^{_LEAD}({VIDEO_CLOCK}){_ISH}(?!\s*[-\u2013]\s*\d){_NEXT}")
#: Words before a named part that say it is not the part to search ("but not in the first half", "except in the last
#: ten minutes"): the question is then read whole, with no part.
EXCEPT = re.compile(r"\b(?:not|except|apart\s+from|other\s+than|outside(?:\s+of)?|rather\s+than|instead\s+of)\s+$")
#: Words after a named part that compare it with another ("happier in the first half or the second?", "... than in
#: the last ten minutes"): a question about both, read whole, with no part.
COMPARED = re.compile(r"\s*(?:,\s*)?(?:or(?!\s+so\b)|than|versus|vs\.?|compared)\b")


def number(word: str) -> float:
    """A number written in digits or words ("12", "2.5", "twenty-five") as a float."""
    return float(word) if word[0].isdigit() else float(NUMBER_WORDS[word])


def ordinal(word: str) -> int:
    """An ordinal written in digits or words ("34th", "sixth", "twenty-first") as an int."""
    return int(re.sub(r"\D", "", word)) if word[0].isdigit() else ORDINAL_WORDS[word]


def time_seconds(text: str, unit_s: float | None = None) -> tuple[float, bool] | None:
    """``text`` (one ``TIME`` match) in seconds, and whether it carried its own unit or colon; a bare number is read
    in ``unit_s`` (None: not read, returns None). "12:30" -> 750; "1:02:03" -> 3723; "ten minutes" -> 600; "half an
    hour" -> 1800; "an hour" -> 3600; "minute 3" -> 180; "the 5 minute mark" -> 300; "the first hour" -> 3600; "22m"
    -> 1320; "90s" -> 90."""
    t = re.sub(r"^the\s+(?:first\s+)?|\s+marks?$", "", text.strip())
    if re.fullmatch(COMPOUND, t):
        return _compound_seconds(t), True
    if re.fullmatch(r"\d{1,2}:[0-5]\d(?::[0-5]\d)?", t):
        parts = [int(p) for p in t.split(":")]
        return float(sum(p * 60 ** i for i, p in enumerate(reversed(parts)))), True
    if re.fullmatch(r"(?:half|1/2)(?:\s+an?\s+|\s*-\s*|\s+)hour|an?\s+half\s+hour", t):
        return 1800.0, True
    if re.fullmatch(r"(?:a\s+)?quarter(?:\s+of\s+an|-)?\s*hour", t):
        return 900.0, True
    if m := re.fullmatch(r"(\d+)h(?:\s*(\d{1,2})(?:m|min)?)?", t):
        return int(m.group(1)) * 3600.0 + int(m.group(2) or 0) * 60.0, True
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)([ms])", t):
        return float(m.group(1)) * UNIT_S[m.group(2)], True
    if m := re.fullmatch(r"(?:an?\s+)?(hour|minute)", t):
        return float(UNIT_S[m.group(1)]), True
    if m := re.fullmatch(rf"minute\s+({NUM})", t):
        return number(m.group(1)) * 60, True
    if m := re.fullmatch(rf"({NUM})(?:\s*|-)({UNIT})", t):
        return number(m.group(1)) * UNIT_S[re.sub(r"s$", "", m.group(2))], True
    if re.fullmatch(NUM, t) and unit_s is not None:
        return number(t) * unit_s, False
    return None


def _compound_seconds(t: str) -> float:
    """An amount in two parts (``COMPOUND``) in seconds: "1 hour 30 minutes" -> 5400, "an hour and a half" -> 5400."""
    pieces = re.findall(rf"((?:{NUM})|an?)\s*-?\s*(hours?|hrs?|minutes?|mins?|seconds?|secs?)", t)
    if m := re.fullmatch(rf"((?:{NUM})|an?)?\s*(?:(hour|minute)\s+)?and\s+a\s+half(?:\s+(hours?|minutes?))?", t):
        unit = UNIT_S[re.sub(r"s$", "", m.group(2) or m.group(3))]
        return (1.0 if m.group(1) in (None, "a", "an") else number(m.group(1))) * unit + unit / 2
    return sum((1.0 if n in ("a", "an") else number(n)) * UNIT_S[re.sub(r"s$", "", u)] for n, u in pieces)


def unit_of(text: str) -> float | None:
    """Seconds per unit of the first time in ``text`` that carries one ("3 and 5 minutes" -> 60; "min 25-30" -> 60);
    None when no time in it does."""
    m = re.search(rf"(?:{NUM})(?:\s*|-)({UNIT})|\b(minutes?|mins?)\b", text)
    return None if m is None else float(UNIT_S[re.sub(r"s$", "", m.group(1) or m.group(2))])
