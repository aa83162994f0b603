"""What the commands say on stderr when a file given as a snapshot turns out to be a pasted report."""

from __future__ import annotations

import click

from envsnap.errors import BadInput
from envsnap.importers.auto import notice
from envsnap.snapshot.model import Snapshot


def announce(snapshot: Snapshot, source: str, *, strict: bool = False) -> Snapshot:
    """Name the report sections just read from ``source`` (stderr); with ``strict``, refuse a cut-off one.

    A saved snapshot of an earlier import (its origin names another file) is not announced again.

    Raises:
        BadInput: ``strict`` and the report was cut off.
    """
    origin = snapshot.meta.origin
    if origin is None or origin.file != (source if source != "-" else "<stdin>"):
        return snapshot
    if strict and origin.partial:
        raise BadInput(
            f"{origin.file}: the report is cut off (no {', '.join(origin.missing or ())} section); "
            "--strict refuses a partial report"
        )
    for line in notice(snapshot):
        click.echo(line, err=True)
    return snapshot
