"""The process pool gives the same scan as one process, in the same order."""

from __future__ import annotations

import concurrent.futures
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from pathlib import Path

import pytest

from envsnap.audit import scan as scan_module
from envsnap.audit.scan import PARALLEL_MIN_FILES, scan_tree


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks; Linux only")
def test_pool_and_single_process_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(PARALLEL_MIN_FILES + 50):
        body = f"import torch\nx{n} = torch.zeros(1).cuda()\n" if n % 7 == 0 else f"value_{n} = {n}\n"
        (tmp_path / f"m{n:04d}.py").write_text(body)
    (tmp_path / "link.py").symlink_to(tmp_path / "m0000.py")
    single = scan_tree(str(tmp_path), workers=1)
    used: list[int] = []

    class Counting(ProcessPoolExecutor):
        def __init__(self, max_workers: int | None = None, mp_context: BaseContext | None = None) -> None:
            used.append(1)
            super().__init__(max_workers=max_workers, mp_context=mp_context)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)  # imported when a pool starts
    monkeypatch.setattr(scan_module, "_fork_is_safe", lambda: True)
    pooled = scan_tree(str(tmp_path), workers=4)
    assert used == [1]
    assert pooled == single
    assert len(single.signals) == len(range(0, PARALLEL_MIN_FILES + 50, 7))
    assert [s.file for s in single.skipped] == ["link.py"]


@pytest.mark.parametrize(
    ("usable", "load", "idle"),
    [(2, 0.1, 2), (2, 0.9, 2), (2, 1.2, 1), (2, 3.5, 1), (16, 10.2, 6), (16, 0.0, 16)],
)
def test_the_pool_takes_the_idle_cpus(
    monkeypatch: pytest.MonkeyPatch, usable: int, load: float, idle: int
) -> None:
    """A busy machine (a training job on its cores) gets a smaller pool, or none."""
    monkeypatch.setattr(scan_module, "_usable_cpus", lambda: usable)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert scan_module._idle_cpus() == idle


def test_a_busy_two_core_machine_scans_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(PARALLEL_MIN_FILES + 10):
        (tmp_path / f"m{n:04d}.py").write_text(f"value_{n} = {n}\n")
    started: list[int] = []

    class Counting(ProcessPoolExecutor):
        def __init__(self, max_workers: int | None = None, mp_context: BaseContext | None = None) -> None:
            started.append(max_workers or 0)
            super().__init__(max_workers=max_workers, mp_context=mp_context)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)  # imported when a pool starts
    monkeypatch.setattr(scan_module, "_fork_is_safe", lambda: True)
    monkeypatch.setattr(scan_module, "_usable_cpus", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 1.0, 1.0))
    scan_tree(str(tmp_path))
    assert started == []
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    scan_tree(str(tmp_path))
    assert started == [2]
