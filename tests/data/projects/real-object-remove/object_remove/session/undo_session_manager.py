"""Session / undo persistence.

* each edit gets a session id and a directory holding the mask history
  (RLE encoded) and step metadata;
* session directory removal is **not** an inline synchronous delete — it is
  dispatched as a task onto a queue and run under an explicit lock, so the UI
  thread never blocks on filesystem I/O and two removals can't race;
* corrupt sessions are validated and discarded rather than trusted.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np


# RLE mask codec (compact mask history)
def rle_encode(mask: np.ndarray) -> dict:
    flat = np.ascontiguousarray(mask > 0).ravel()
    if flat.size == 0:
        return {"h": 0, "w": 0, "runs": []}
    changes = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate(([0], changes, [flat.size]))
    runs = np.diff(bounds).tolist()
    return {"h": int(mask.shape[0]), "w": int(mask.shape[1]),
            "first": int(flat[0]), "runs": runs}


def rle_decode(obj: dict) -> np.ndarray:
    h, w = obj["h"], obj["w"]
    flat = np.zeros(h * w, dtype=bool)
    val = bool(obj.get("first", 0))
    pos = 0
    for run in obj["runs"]:
        if val:
            flat[pos:pos + run] = True
        pos += run
        val = not val
    return flat.reshape(h, w)


# background delete task queue
@dataclass
class _RemoveTask:
    kind: str          # "remove_session_directory"
    path: str


class _TaskQueue:
    """Serialises removals under a lock on a background worker thread."""

    def __init__(self):
        self._q: "queue.Queue[Optional[_RemoveTask]]" = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def submit(self, task: _RemoveTask) -> None:
        self._q.put(task)

    def _run(self) -> None:
        while True:
            task = self._q.get()
            if task is None:
                return
            try:
                with self._lock:
                    if task.kind == "remove_session_directory" and os.path.isdir(task.path):
                        shutil.rmtree(task.path, ignore_errors=True)
            finally:
                self._q.task_done()

    def flush(self) -> None:
        self._q.join()

    def stop(self) -> None:
        self._q.put(None)


@dataclass
class EditStep:
    index: int
    mask_rle: dict
    note: str = ""
    ts: float = field(default_factory=time.time)


class SessionManager:
    """One instance per app; owns the sessions root and the delete queue."""

    def __init__(self, root: str):
        self.root = root
        os.makedirs(root, exist_ok=True)
        self._queue = _TaskQueue()
        self._sessions: dict[str, "EditSession"] = {}

    def new_session(self) -> "EditSession":
        session_id = uuid.uuid4().hex[:16]
        path = os.path.join(self.root, session_id)
        os.makedirs(path, exist_ok=True)
        sess = EditSession(session_id, path)
        self._sessions[session_id] = sess
        return sess

    # explicit per session cleanup (queued/locked, not inline)
    def remove_session_directory(self, session: "EditSession") -> None:
        """Queue removal of a specific (committed/exported) session."""
        self._sessions.pop(session.session_id, None)
        self._queue.submit(_RemoveTask("remove_session_directory", session.path))

    def flush(self) -> None:
        self._queue.flush()

    def close(self) -> None:
        self._queue.flush()
        self._queue.stop()

    @staticmethod
    def validate_session(path: str) -> bool:
        """A session is valid iff its manifest parses and its steps decode."""
        manifest = os.path.join(path, "manifest.json")
        if not os.path.isfile(manifest):
            return False
        try:
            with open(manifest) as fh:
                data = json.load(fh)
            for step in data.get("steps", []):
                rle_decode(step["mask_rle"])
            return True
        except Exception:
            return False


class EditSession:
    def __init__(self, session_id: str, path: str):
        self.session_id = session_id
        self.path = path
        self.steps: List[EditStep] = []

    def record(self, mask: np.ndarray, note: str = "") -> EditStep:
        step = EditStep(len(self.steps), rle_encode(mask), note)
        self.steps.append(step)
        self._persist()
        return step

    def undo(self) -> Optional[EditStep]:
        if not self.steps:
            return None
        step = self.steps.pop()
        self._persist()
        return step

    def mask_at(self, index: int) -> np.ndarray:
        return rle_decode(self.steps[index].mask_rle)

    def _persist(self) -> None:
        manifest = {
            "session_id": self.session_id,
            "steps": [{"index": s.index, "mask_rle": s.mask_rle,
                       "note": s.note, "ts": s.ts} for s in self.steps],
        }
        tmp_manifest_path = os.path.join(self.path, "manifest.json.tmp")
        with open(tmp_manifest_path, "w") as fh:
            json.dump(manifest, fh)
        # atomic rename so a crash mid write never leaves a truncated manifest
        os.replace(tmp_manifest_path, os.path.join(self.path, "manifest.json"))

    def is_empty(self) -> bool:
        return len(self.steps) == 0
