"""Screens of the TUI: each takes the whole terminal (main with its tabs, diff, fleet, run, verify,
migrate, help) and renders part of the model from reactives it is bound to. The tabs are in panes/."""

from __future__ import annotations
