"""The environment side of record/verify: this machine's snapshot, and its diff against the bundle's.

``environment="full"`` runs every probe (``envsnap save``'s snapshot; the framework probe imports
torch in a subprocess, a few seconds); ``"fast"`` skips the framework probes (the torch version is
still in the manifest); ``"none"`` records no snapshot. A Snapshot object is used as given.

``snapshot_soon`` starts the probes on a worker thread when the block is entered, so their
seconds (a subprocess importing torch) overlap the user's block instead of adding to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from envsnap.errors import BadInput

if TYPE_CHECKING:
    from envsnap.snapshot.model import Change, Snapshot

EnvironmentOption = Literal["full", "fast", "none"]


def snapshot_for(option: Any) -> Snapshot | None:
    """This machine's snapshot per ``option`` (see the module docstring)."""
    from envsnap.snapshot.model import Snapshot

    if isinstance(option, Snapshot):
        return option
    if option == "none" or option is None:
        return None
    if option not in ("full", "fast"):
        raise ValueError(f"environment must be 'full', 'fast', 'none' or a Snapshot, not {option!r}")
    from envsnap import api

    return api.collect(frameworks=option == "full")


def snapshot_soon(option: Any) -> Callable[[], Snapshot | None]:
    """Start ``snapshot_for(option)`` now, in the background; the returned function waits for it.

    Raises (from the returned function): what snapshot_for raises. A bad option raises now.
    """
    if option is None or option == "none" or not isinstance(option, str):
        result = snapshot_for(option)
        return lambda: result
    if option not in ("full", "fast"):
        snapshot_for(option)  # raises the ValueError
    from concurrent.futures import ThreadPoolExecutor

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="envsnap-probe")
    future = executor.submit(snapshot_for, option)
    executor.shutdown(wait=False)

    def wait() -> Snapshot | None:  # the same result however often it is asked
        return future.result()

    return wait


def snapshot_text(snapshot: Snapshot) -> bytes:
    from envsnap.snapshot import store

    return store.dumps(snapshot).encode("utf-8")


def read_snapshot(text: str | None, name: str) -> Snapshot | None:
    """The bundle's snapshot (store's distrustful reader), or None when it holds none."""
    if text is None:
        return None
    from envsnap.snapshot import store

    try:
        return store.loads(text, name)
    except BadInput:
        raise
    except Exception as err:  # a snapshot the reader can't model: refused, not a traceback
        raise BadInput(f"{name}: not a valid snapshot: {err}") from None


def environment_changes(old: Snapshot | None, new: Snapshot | None) -> list[Change]:
    """The existing layer-aware diff, bundle → this machine (empty when either side is missing)."""
    if old is None or new is None:
        return []
    from envsnap.compare.diff import diff

    return list(diff(old, new))
