"""Orphaned empty session GC.

A startup/periodic sweep, distinct from the explicit per session cleanup path,
that removes session directories left behind by aborted or crashed edits (empty
or with no valid recorded step). Deletions go through the same queued/locked
delete task as explicit removal.
"""

from __future__ import annotations

import json
import os
from typing import List

from .undo_session_manager import SessionManager, _RemoveTask


class EmptySessionSweeper:
    def __init__(self, manager: SessionManager):
        self.manager = manager

    def sweep(self) -> List[str]:
        """Queue removal of empty/orphaned session dirs; return the ids swept."""
        root = self.manager.root
        swept: List[str] = []
        if not os.path.isdir(root):
            return swept
        for name in os.listdir(root):
            path = os.path.join(root, name)
            if not os.path.isdir(path):
                continue
            if self._is_orphan(path):
                self.manager._queue.submit(
                    _RemoveTask("remove_session_directory", path))
                swept.append(name)
        return swept

    @staticmethod
    def _is_orphan(path: str) -> bool:
        manifest = os.path.join(path, "manifest.json")
        if not os.path.isfile(manifest):
            # a directory with no manifest at all is an aborted/crashed edit
            return True
        try:
            with open(manifest) as fh:
                data = json.load(fh)
        except Exception:
            return True  # corrupt, so discard
        return len(data.get("steps", [])) == 0
