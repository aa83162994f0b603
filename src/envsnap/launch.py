"""The console-script entry point: answers ``--version`` before anything heavy is imported.

``envsnap --version`` is what scripts and bug reports run most; importing click alone costs
about 25 ms, more than the interpreter's own start. Every other invocation goes on to
``envsnap.cli.main`` unchanged.
"""

from __future__ import annotations

import sys

from envsnap._version import __version__

_VERSION_FLAGS = frozenset({"--version", "-V"})


def main() -> None:
    """Print the version for a bare ``--version``/``-V``; otherwise run the click CLI."""
    if len(sys.argv) == 2 and sys.argv[1] in _VERSION_FLAGS:
        # The same line click's version_option prints, so scripts parsing it see no change.
        sys.stdout.write(f"envsnap, version {__version__}\n")
        sys.stdout.flush()
        return
    from envsnap.cli import main as cli_main

    cli_main()
