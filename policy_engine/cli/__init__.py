"""The ``policy-engine`` command line: one module of click commands per topic, behind ``click_cli.py``.

:mod:`policy_engine.cli.common` holds the root group :data:`main`, the exit
codes, the shared options and the error mapping; each topic module
(``policy``, ``bundle``, ``runtime``, ``audit``, ``models``, ``explain``, ...)
defines click commands that call one library function each and print what it
returns.  ``click_cli.py`` registers every command on :data:`main` with one
``main.add_command(...)`` line.  Nothing else in the library imports this
package: the arrow points from the CLI to the library, never back.
"""

from policy_engine.cli.common import ExitCode, main

__all__ = ["ExitCode", "main"]
