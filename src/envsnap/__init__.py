"""envsnap: probe, check, snapshot, diff and roll back the ML stack of a GPU host.

The public API is imported lazily (PEP 562) so that ``import envsnap`` and ``envsnap --version``
stay fast and never load textual, torch, pynvml or amdsmi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envsnap._version import __version__

if TYPE_CHECKING:
    from envsnap.api import check, collect, diff, load, save
    from envsnap.inprocess.guard import guard
    from envsnap.inprocess.record import record
    from envsnap.inprocess.verify import verify

__all__ = ["__version__", "check", "collect", "diff", "guard", "load", "record", "save", "verify"]


def __getattr__(name: str) -> Any:
    if name in ("check", "collect", "diff", "load", "save"):
        from envsnap import api

        return getattr(api, name)
    if name == "guard":
        from envsnap.inprocess.guard import guard

        return guard
    if name == "record":
        from envsnap.inprocess.record import record

        return record
    if name == "verify":
        from envsnap.inprocess.verify import verify

        return verify
    raise AttributeError(f"module 'envsnap' has no attribute {name!r}")
