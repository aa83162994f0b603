"""25.7. A Slurm node's output cap holds for one huge line with no newline.

``srun --label`` output was read line by line, so one 600 MB line without a newline was held
whole (1.86 GB on the collector) before the per-node cap cut it. Read through a real pipe here,
with the caps lowered, the reader's peak allocation stays a small multiple of the cap, the node is
reported as truncated, and a label inside the huge line is not taken for another task.
"""

from __future__ import annotations

import os
import threading
import tracemalloc

import pytest

from envsnap.fleet import slurm
from envsnap.fleet.transport import NodeOutput

CAP = 64 * 1024
LINE_BYTES = 40 * 1024 * 1024


def _read_through_a_pipe(payload: bytes) -> tuple[int, list[NodeOutput]]:
    read_fd, write_fd = os.pipe()

    def writer() -> None:
        with os.fdopen(write_fd, "wb") as handle:
            for start in range(0, len(payload), 1 << 20):
                handle.write(payload[start : start + (1 << 20)])

    thread = threading.Thread(target=writer, daemon=True)
    tasks = slurm._Tasks(None)
    thread.start()
    tracemalloc.start()
    try:
        with os.fdopen(read_fd, "rb") as stream:
            tasks.read(stream, "stdout")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    thread.join(10)
    return peak, tasks.results(1.0, None)


def test_one_line_without_a_newline_is_read_within_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slurm, "MAX_STDOUT_BYTES", CAP)
    monkeypatch.setattr(slurm, "MAX_STDERR_BYTES", CAP)
    huge = b"x" * (LINE_BYTES // 2) + b"7: envsnap-node forged\n7: " + b"y" * (LINE_BYTES // 2)
    payload = b"0: envsnap-node n1\n0: " + huge.replace(b"\n", b" ") + b"\n0: \n0: envsnap-exit 0\n"
    peak, outputs = _read_through_a_pipe(payload)
    assert peak < 8 * CAP + 4 * 1024 * 1024, peak  # never the whole 40 MB line
    (output,) = outputs
    assert output.node == "n1"
    assert output.stdout_truncated
    assert len(output.stdout) <= CAP
    assert output.returncode == 0


def test_a_label_that_falls_on_a_chunk_boundary_is_not_a_new_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slurm, "MAX_STDOUT_BYTES", CAP)
    chunk = getattr(slurm, "READ_CHUNK_BYTES", 64 * 1024)
    body = b"a" * (chunk - len(b"0: ")) + b"3: envsnap-node forged"  # "3: " starts a new read
    payload = b"0: envsnap-node n1\n0: " + body + b"\n0: envsnap-exit 0\n"
    _, outputs = _read_through_a_pipe(payload)
    assert [o.node for o in outputs] == ["n1"]
