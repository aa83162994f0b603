"""Shell completion (bash, zsh, fish) through click's own protocol: what each argument completes to.

click answers completion requests itself when ``_ENVSNAP_COMPLETE`` is set (``bash_source`` prints
the script to ``eval``, ``bash_complete`` answers one request); these callbacks only say what a
value can be. File arguments hand over to the shell's own file completion (``type="file"``), so
paths, ``~`` and quoting behave as everywhere else. Rule ids and layers are imported only when a
completion asks for them, never when a command runs.
"""

from __future__ import annotations

from click import Context, Parameter
from click.shell_completion import CompletionItem


def files(ctx: Context, param: Parameter, incomplete: str) -> list[CompletionItem]:
    """Snapshot and report arguments: the shell's file completion."""
    return [CompletionItem(incomplete, type="file")]


def layers(ctx: Context, param: Parameter, incomplete: str) -> list[CompletionItem]:
    """``diff --only``: the layers of the diff."""
    from envsnap.compare.impact import LAYERS

    return [CompletionItem(layer) for layer in LAYERS if layer.startswith(incomplete)]


def rule_ids(ctx: Context, param: Parameter, incomplete: str) -> list[CompletionItem]:
    """``check --ignore``: the id of every rule."""
    from envsnap.rules import RULE_IDS

    return [CompletionItem(rule) for rule in sorted(RULE_IDS) if rule.startswith(incomplete)]
