"""What the commands say on stderr when a file given as a snapshot turns out to be a pasted report."""

from __future__ import annotations

import click

from envsnap.errors import BadInput
from envsnap.importers.auto import notice
from envsnap.snapshot.model import Snapshot


def announce(snapshot: Snapshot, *, strict: bool = False) -> Snapshot:
    """Name the report sections read (stderr); with ``strict``, refuse a cut-off report.

    Raises:
        BadInput: ``strict`` and the report was cut off.
    """
    origin = snapshot.meta.origin
    if strict and origin is not None and origin.partial:
        raise BadInput(
            f"{origin.file}: the report is cut off (no {', '.join(origin.missing or ())} section); "
            "--strict refuses a partial report"
        )
    for line in notice(snapshot):
        click.echo(line, err=True)
    return snapshot
