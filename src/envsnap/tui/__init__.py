"""The interactive inspector (``envsnap tui``): a Textual UI over the snapshot model and live telemetry.

This package is the only part of envsnap that imports Textual (enforced by import-linter and ruff's
TID251). It renders models only: snapshots come from ``envsnap.api``/``collect`` and telemetry
from a ``live.sampler.Sampler``, both called from thread workers, never from the event loop.
Importing the package itself loads nothing; ``envsnap.tui.app`` holds the application.
"""

from __future__ import annotations
