"""The framework probe's cache: an unchanged environment is not imported again; any install is.

The fake torch build of tests/data/frameworks runs through the real child script; a second probe
with the children made to fail proves the answer came from the cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envsnap.probes.base import ProbeContext
from envsnap.probes.frameworks import cache as framework_cache
from envsnap.probes.frameworks import probe as frameworks
from tests.fakes.frameworks import fake_site, framework_context


def _no_children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    started: list[str] = []

    def refuse(ctx: ProbeContext, script: Path, env: Any, job: str) -> str:
        started.append(job)
        return "exited with status 1: the cache should have answered"

    monkeypatch.setattr(frameworks, "run_job", refuse)
    return started


def test_an_unchanged_environment_is_answered_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = framework_context(fake_site(tmp_path, "fake_torch", "companions"), build="cu124")
    first = frameworks.probe(ctx)
    assert first.torch is not None
    assert first.torch.version == "2.5.1+cu124"
    assert framework_cache.default_path().is_file()
    started = _no_children(monkeypatch)
    assert frameworks.probe(ctx) == first
    assert started == []


def test_an_install_or_an_environment_change_probes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_site(tmp_path, "fake_torch", "companions")
    ctx = framework_context(site, build="cu124")
    frameworks.probe(ctx)
    key = framework_cache.cache_key(ctx, frameworks.child_environment(ctx.environ))
    started = _no_children(monkeypatch)

    record = site / "newpkg-1.0.dist-info" / "RECORD"
    record.parent.mkdir()
    record.write_text("newpkg/__init__.py,,\n", encoding="utf-8")
    assert framework_cache.cache_key(ctx, frameworks.child_environment(ctx.environ)) != key
    frameworks.probe(ctx)
    assert set(started) == set(frameworks.JOBS)

    started.clear()
    record.write_text("newpkg/__init__.py,,\nnewpkg/more.py,,\n", encoding="utf-8")  # reinstalled
    frameworks.probe(ctx)
    assert started

    started.clear()
    moved = ProbeContext(python=ctx.python, environ={**ctx.environ, "CUDA_VISIBLE_DEVICES": "1"})
    frameworks.probe(moved)
    assert started


def test_no_cache_probes_again_and_failures_are_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = framework_context(fake_site(tmp_path, "fake_torch"), build="cu124")
    started = _no_children(monkeypatch)
    failed = frameworks.probe(ctx)
    assert failed.torch is not None
    assert failed.torch.status == "failed"
    assert not framework_cache.default_path().exists()  # a failure is not a build fact
    monkeypatch.undo()
    frameworks.probe(ctx)
    started = _no_children(monkeypatch)
    uncached = ProbeContext(python=ctx.python, environ=ctx.environ, cache=False)
    frameworks.probe(uncached)
    assert set(started) == set(frameworks.JOBS)


def test_a_corrupt_cache_file_counts_as_empty(tmp_path: Path) -> None:
    path = framework_cache.default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00not json")
    assert framework_cache.load("anything") is None
    framework_cache.store("k", {job: {"status": "absent"} for job in frameworks.JOBS}, frameworks.JOBS)
    assert framework_cache.load("k") == {job: {"status": "absent"} for job in frameworks.JOBS}
