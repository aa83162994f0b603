"""The environment side of record/verify: this machine's snapshot, and its diff against the bundle's.

``environment="full"`` runs every probe (``envsnap save``'s snapshot; the framework probe imports
torch in a subprocess, a few seconds); ``"fast"`` skips the framework probes (the torch version is
still in the manifest); ``"none"`` records no snapshot. A Snapshot object is used as given.

``snapshot_soon`` starts the probes on a worker thread when the block is entered, so their
seconds (a subprocess importing torch) overlap the user's block instead of adding to it; later
records and verifies in the same process reuse the snapshot while the environment variables and
the import path's package directories are unchanged. With one usable CPU the probes are deferred
to just after the block instead (nothing to overlap them with).
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


_CACHE: dict[str, tuple[str, Snapshot | None]] = {}
"""Per option, the last snapshot this process took and the key it was taken under."""


def _environment_key() -> str:
    """What a snapshot of this process's environment could change with, cheap to read (µs): the
    environment variables, the import path, and the modification time of each package directory
    on it (installing or removing a package adds or deletes a ``*.dist-info`` there; other
    directories on the path, such as a script's own, change whenever a file is written there).
    Drivers and devices do not change under a running process that has loaded them."""
    import os
    import sys

    stamps: list[int | None] = []
    for entry in sys.path:
        if os.path.basename(entry.rstrip(os.sep)) in ("site-packages", "dist-packages"):
            try:
                stamps.append(os.stat(entry).st_mtime_ns)
            except OSError:
                stamps.append(None)
    import hashlib

    # A digest: the variables may hold secrets, and the cache outlives the call.
    state = repr((sys.executable, sorted(os.environ.items()), sys.path, stamps))
    return hashlib.sha256(state.encode("utf-8", "surrogatepass")).hexdigest()


class PendingSnapshot:
    """The result of ``snapshot_soon``: call it to wait for the snapshot (or, when the probes were
    deferred, to take it now)."""

    def __init__(
        self,
        future: Any = None,
        result: Snapshot | None = None,
        deferred: Callable[[], Snapshot | None] | None = None,
    ) -> None:
        self._future = future
        self._result = result
        self._deferred = deferred

    def running(self) -> bool:
        """Whether the probes are running now (on a worker thread, sharing the interpreter)."""
        return self._future is not None and not self._future.done()

    def __call__(self) -> Snapshot | None:  # the same result however often it is asked
        if self._deferred is not None:
            self._result, self._deferred = self._deferred(), None
        return self._future.result() if self._future is not None else self._result


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    import os

    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def snapshot_soon(option: Any) -> PendingSnapshot:
    """Start ``snapshot_for(option)`` now, in the background; calling the result waits for it.

    "full" and "fast" are probed once per process and reused while ``_environment_key`` is
    unchanged: the probes are a second (the framework probe imports torch in a subprocess) on the
    first record, and on later ones their threads would compete with the block being recorded.
    With one usable CPU there is nothing to overlap them with: they are deferred to the first call
    of the result (record makes it after the block, before the timed replays), so they never run
    beside anything timed.

    Raises (from the returned object's call): what snapshot_for raises. A bad option raises now.
    """
    if option is None or option == "none" or not isinstance(option, str):
        return PendingSnapshot(result=snapshot_for(option))
    if option not in ("full", "fast"):
        snapshot_for(option)  # raises the ValueError
    key = _environment_key()
    cached = _CACHE.get(option)
    if cached is not None and cached[0] == key:
        return PendingSnapshot(result=cached[1])

    def probe() -> Snapshot | None:
        snapshot = snapshot_for(option)
        _CACHE[option] = (key, snapshot)
        return snapshot

    if usable_cpus() < 2:
        return PendingSnapshot(deferred=probe)
    from concurrent.futures import ThreadPoolExecutor

    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="envsnap-probe")
    future = executor.submit(probe)
    executor.shutdown(wait=False)
    return PendingSnapshot(future=future)


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
