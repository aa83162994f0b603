"""PyQt6 Desktop GUI for abogen.

This package contains the traditional PyQt6-based desktop interface.
For the web-based interface, see abogen.webui.
"""

from __future__ import annotations
