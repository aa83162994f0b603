"""Command lines for another Python interpreter that never import from the current folder.

``python -c CODE`` and ``python -m MODULE`` put the current folder first on ``sys.path``: started
from an untrusted checkout, the child imports the checkout's ``json.py`` (the framework-cache query),
runs its ``pip/`` folder (``rollback --apply``) or its ``envsnap/`` (a Slurm task starts in the
submitting folder). Every child interpreter envsnap starts goes through here.

Why not a flag: ``-P`` (no unsafe path) exists only from Python 3.11, and targets go back to 3.8;
``-I`` (isolated) also drops ``PYTHONPATH`` and the user's site-packages, which the probes must see
(they report the environment as the user's programs get it). So the code itself starts by removing
the entry ``-c`` put there (``""``), before anything but the built-in ``sys`` is imported: the
current folder is never searched. A module runs through ``runpy`` after that, as ``-m`` would.
The prelude is valid Python 2 syntax, so an old interpreter still answers with its version.
"""

from __future__ import annotations

from collections.abc import Sequence

PRELUDE = 'import sys\nif sys.path and sys.path[0] == "":\n    del sys.path[0]\n'
"""Drops the current folder that ``-c`` puts first on ``sys.path`` (what ``-P`` does on 3.11+)."""


def code_argv(python: str, code: str) -> list[str]:
    """``python -c CODE`` with the current folder off ``sys.path`` before ``CODE`` imports anything."""
    return [python, "-c", PRELUDE + code]


def module_argv(python: str, module: str, args: Sequence[str] = ()) -> list[str]:
    """``python -m MODULE ARGS...`` without the current folder on ``sys.path``."""
    run = f"import runpy\nrunpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
    return [*code_argv(python, run), *args]
