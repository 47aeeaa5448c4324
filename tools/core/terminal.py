"""Untrusted text (file names, queries, transcripts, model output) made safe to print on a terminal.

A file name or a transcript can carry terminal control sequences: CSI (``ESC [``) clears the screen or
moves the cursor, OSC 52 (``ESC ] 52``) writes the clipboard, a carriage return overwrites the line
(ECMA-48, "Control Functions for Coded Character Sets"). Every C0 and C1 control character, DEL and
the Unicode bidirectional overrides are shown as visible escapes instead; rich console markup in the
text (``[red]``) is escaped so it prints literally.
"""

from __future__ import annotations

import re

# C0 controls (tab and newline included: names and one-line fields never need them), DEL, C1 controls,
# and the bidirectional embedding/override/isolate characters (Unicode TR #9) that reorder what is shown
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """``str(text)`` with every control character written as ``\\xNN`` or ``\\uNNNN`` (visible, inert)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", str(text))


def markup_safe(text: object) -> str:
    """``printable(text)`` with rich markup escaped, for interpolation into a rich markup string."""
    from rich.markup import escape

    return escape(printable(text))
