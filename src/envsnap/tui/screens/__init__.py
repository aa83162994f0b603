"""Screens and tab panes of the TUI: each renders part of the model from reactives it is bound to."""

from __future__ import annotations
