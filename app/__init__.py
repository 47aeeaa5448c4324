"""The application shell: the ``affectseek`` command, its subcommands, settings and presentation
(the answer table, the HTML report, the graph picture). Imports every layer below it."""
