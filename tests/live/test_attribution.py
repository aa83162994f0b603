"""Attributing GPU memory to the watched tree, and knowing when that can't be done (containers)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from envsnap.live.attribution import holding, nested_pid_namespace
from tests.fakes.workload_gpu import BUSY_V100, IDLE_T4, recorded
from tests.live.conftest import fake_proc


def test_found_when_a_tree_pid_is_listed(tmp_path: Path) -> None:
    t4 = recorded(IDLE_T4)
    held = holding(t4, {5762, 99}, proc_root=fake_proc(tmp_path, pids=(675, 5762)))

    assert held.attribution == "found"
    assert held.tree_memory_bytes == {0: 1053818880}


def test_absent_when_every_listed_pid_is_someone_elses(tmp_path: Path) -> None:
    held = holding(recorded(IDLE_T4), {99}, proc_root=fake_proc(tmp_path, pids=(675, 5762)))

    assert held.attribution == "absent"
    assert held.reason is None


def test_uncertain_when_listed_pids_are_not_in_our_namespace(tmp_path: Path) -> None:
    held = holding(recorded(BUSY_V100), {99}, proc_root=fake_proc(tmp_path))

    assert held.attribution == "uncertain"
    assert held.reason is not None
    assert "4027538, 4027590, 4157880, 4165319" in held.reason


def test_uncertain_in_a_nested_pid_namespace_even_on_a_match(tmp_path: Path) -> None:
    root = fake_proc(tmp_path, pids=(675, 5762), nspid=(48213, 7))

    assert nested_pid_namespace(root)
    held = holding(recorded(IDLE_T4), {5762}, proc_root=root, nested_namespace=True)
    assert held.attribution == "uncertain"
    assert held.reason is not None
    assert "nested PID namespace" in held.reason


def test_single_level_nspid_is_not_nested(tmp_path: Path) -> None:
    assert not nested_pid_namespace(fake_proc(tmp_path, nspid=(4242,)))
    assert not nested_pid_namespace(tmp_path / "missing")


def test_unavailable_when_the_backend_lists_no_processes(tmp_path: Path) -> None:
    silent = tuple(msgspec.structs.replace(d, processes=None) for d in recorded(IDLE_T4))
    held = holding(silent, {99}, proc_root=fake_proc(tmp_path))

    assert held.attribution == "unavailable"


def test_no_gpu_without_devices(tmp_path: Path) -> None:
    assert holding((), {99}, proc_root=fake_proc(tmp_path)).attribution == "no-gpu"
