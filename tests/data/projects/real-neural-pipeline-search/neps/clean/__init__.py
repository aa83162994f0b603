"""Module for cleaning failed trials from neps working directories."""

from __future__ import annotations

from neps.clean.clean import (
    clean_failed_trials,
    clean_trials_by_id,
    clean_trials_by_state,
)

__all__ = [
    "clean_failed_trials",
    "clean_trials_by_id",
    "clean_trials_by_state",
]
