"""``python -m agents.run VIDEO "QUERY"``: the documented command, the same as ``affectseek ask``.

An entry-point shim kept for the documented command line; the command itself lives in the
application shell (``app.ask``). Nothing imports this module.
"""

import sys

if __name__ == "__main__":
    from tools.core.interrupt import exit_on_interrupt

    exit_on_interrupt()  # before the command's imports: a Ctrl-C during them is one line too
    from app.ask import entry

    sys.exit(entry(prog="python -m agents.run"))
