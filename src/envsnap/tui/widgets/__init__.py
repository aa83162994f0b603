"""Widgets of the TUI: each owns its look (``DEFAULT_CSS``) and renders one piece of the model."""

from __future__ import annotations
