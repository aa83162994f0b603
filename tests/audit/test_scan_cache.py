"""The audit's per-file cache: a warm scan is the cold scan, and nothing stale, foreign or secret gets in."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from envsnap.audit import file_scan, scan_cache
from envsnap.audit.model import Skipped
from envsnap.audit.scan import scan_tree
from envsnap.audit.walk import Entry
from envsnap.cli import cli
from tests.audit.conftest import project


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache-home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    # Files a test has just written are "racy" (changed within 2 s of the scan) and never stored;
    # the racy rule has its own test below.
    monkeypatch.setattr(scan_cache, "RACY_NS", 0)
    return home


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the scan reads and judges (every other result came from the cache)."""
    seen: list[str] = []
    real = file_scan.scan_file

    def counting(entry: Entry) -> scan_cache.FileResult:
        seen.append(entry.relative)
        return real(entry)

    monkeypatch.setattr(file_scan, "scan_file", counting)
    return seen


def copy_project(name: str, tmp_path: Path) -> Path:
    tree = tmp_path / name
    shutil.copytree(project(name), tree)
    return tree


@pytest.mark.parametrize("name", ["port-flash-attention", "real-keops", "port-llamacpp", "real-vllm"])
def test_a_warm_scan_is_the_cold_scan_and_reads_no_file(
    name: str, tmp_path: Path, cache_home: Path, scanned: list[str]
) -> None:
    tree = copy_project(name, tmp_path)
    cold = scan_tree(str(tree), workers=1)
    first = scan_tree(str(tree), workers=1, cache=True)
    assert scanned
    scanned.clear()
    warm = scan_tree(str(tree), workers=1, cache=True)
    assert scanned == []
    assert warm == first == cold
    assert warm.signals


def test_an_edited_file_is_scanned_again_even_at_the_same_size_and_mtime(
    tmp_path: Path, cache_home: Path, scanned: list[str]
) -> None:
    """``touch -r`` can set the mtime back; the ctime moves with every write and cannot be set."""
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    (tmp_path / "other.py").write_text("import torch\ny = torch.zeros(1).cuda()\n")
    before = os.stat(tmp_path / "train.py")
    assert [s.kind for s in scan_tree(str(tmp_path), cache=True).signals].count("device-hardcode") == 2
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cpu( )\n")  # same size
    os.utime(tmp_path / "train.py", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(tmp_path / "train.py").st_size == before.st_size
    scanned.clear()
    after = scan_tree(str(tmp_path), cache=True)
    assert scanned == ["train.py"]
    assert [s.file for s in after.signals if s.kind == "device-hardcode"] == ["other.py"]


def test_files_removed_added_or_renamed_are_followed(
    tmp_path: Path, cache_home: Path, scanned: list[str]
) -> None:
    (tmp_path / "a.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    (tmp_path / "b.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    scan_tree(str(tmp_path), cache=True)
    (tmp_path / "a.py").unlink()
    (tmp_path / "b.py").rename(tmp_path / "c.py")
    (tmp_path / "d.py").write_text("import torch\ny = torch.ones(1, device='cuda')\n")
    scanned.clear()
    result = scan_tree(str(tmp_path), cache=True)
    assert sorted(scanned) == ["c.py", "d.py"]
    assert sorted({s.file for s in result.signals if s.file}) == ["c.py", "d.py"]


def test_a_file_changed_within_two_seconds_of_the_scan_is_not_stored(
    tmp_path: Path, cache_home: Path, scanned: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As git's racy-index rule: a write in the stat's own timestamp tick would leave a stale entry."""
    monkeypatch.setattr(scan_cache, "RACY_NS", 2_000_000_000)
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    changed = os.stat(tmp_path / "train.py").st_ctime_ns
    monkeypatch.setattr(time, "time_ns", lambda: changed + 1_000_000_000)  # 1 s after the write
    scan_tree(str(tmp_path), cache=True)
    scanned.clear()
    scan_tree(str(tmp_path), cache=True)
    assert scanned == ["train.py"]  # not stored: scanned again
    monkeypatch.setattr(time, "time_ns", lambda: changed + 3_000_000_000)  # settled
    scan_tree(str(tmp_path), cache=True)
    scanned.clear()
    scan_tree(str(tmp_path), cache=True)
    assert scanned == []


def test_a_read_of_the_moment_is_not_stored(tmp_path: Path, cache_home: Path) -> None:
    cache = scan_cache.ScanCache(str(tmp_path))
    stamp = (10, 1, 1, 2, 3)
    cache.keep(
        "gone.py", stamp, ([], [Skipped(file="gone.py", reason="cannot read: Input/output error")], False)
    )
    cache.keep("fifo.py", stamp, ([], [Skipped(file="fifo.py", reason="not a regular file")], False))
    cache.keep(
        "bad.py", stamp, ([], [Skipped(file="bad.py", reason="not parseable Python: x (line 1)")], False)
    )
    cache.save()
    again = scan_cache.ScanCache(str(tmp_path))
    assert again.lookup("gone.py", stamp) is None
    assert again.lookup("fifo.py", stamp) is None
    assert again.lookup("bad.py", stamp) is not None


def one_cached_tree(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    scan_tree(str(tree), cache=True)
    path = scan_cache.cache_path(str(tree))
    assert path.is_file()
    return tree, path


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda p: p.write_bytes(b"\x00garbage\xff" * 100), id="corrupt"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:-7]), id="truncated"),
        pytest.param(lambda p: p.write_bytes(b"\x81\xa3abc\xc0"), id="another-shape"),
        pytest.param(lambda p: p.chmod(0o666), id="others-may-write"),
        pytest.param(lambda p: p.chmod(0o620), id="group-may-write"),
    ],
)
def test_a_corrupt_or_writable_cache_file_is_ignored(
    spoil: object, tmp_path: Path, cache_home: Path, scanned: list[str]
) -> None:
    tree, path = one_cached_tree(tmp_path)
    spoil(path)  # type: ignore[operator]
    scanned.clear()
    result = scan_tree(str(tree), cache=True)
    assert scanned == ["train.py"]
    assert [s.kind for s in result.signals].count("device-hardcode") == 1


def test_a_cache_file_of_another_user_or_a_link_is_ignored(
    tmp_path: Path, cache_home: Path, scanned: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, path = one_cached_tree(tmp_path)
    owner = os.stat(path).st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    scanned.clear()
    scan_tree(str(tree), cache=True)
    assert scanned == ["train.py"]
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.setattr(scan_cache, "RACY_NS", 0)
    monkeypatch.setattr(file_scan, "scan_file", _recording(scanned))
    elsewhere = tmp_path / "planted.msgpack"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    scanned.clear()
    scan_tree(str(tree), cache=True)
    assert scanned == ["train.py"]


def _recording(seen: list[str]) -> object:
    real = file_scan.scan_file

    def counting(entry: Entry) -> scan_cache.FileResult:
        seen.append(entry.relative)
        return real(entry)

    return counting


def test_an_oversized_cache_file_is_neither_read_nor_written(
    tmp_path: Path, cache_home: Path, scanned: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, path = one_cached_tree(tmp_path)
    monkeypatch.setattr(scan_cache, "MAX_BYTES", path.stat().st_size - 1)
    scanned.clear()
    scan_tree(str(tree), cache=True)
    assert scanned == ["train.py"]
    (tree / "more.py").write_text("import torch\nz = torch.zeros(1).cuda()\n")
    before = path.read_bytes()
    scan_tree(str(tree), cache=True)
    assert path.read_bytes() == before  # the bigger cache was not written


def test_another_envsnap_starts_afresh(
    tmp_path: Path, cache_home: Path, scanned: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade, or an edited rule or table, changes the fingerprint: old results would be wrong."""
    tree, _ = one_cached_tree(tmp_path)
    monkeypatch.setattr(scan_cache, "fingerprint", lambda: "another envsnap")
    scanned.clear()
    scan_tree(str(tree), cache=True)
    assert scanned == ["train.py"]


def test_the_fingerprint_follows_envsnaps_own_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "envsnap"
    (package / "audit").mkdir(parents=True)
    (package / "audit" / "scan_cache.py").write_text("# stand-in\n")
    (package / "audit" / "rule.py").write_text("A = 1\n")
    monkeypatch.setattr(scan_cache, "__file__", str(package / "audit" / "scan_cache.py"))
    first = scan_cache.fingerprint()
    assert scan_cache.fingerprint() == first
    (package / "audit" / "rule.py").write_text("A = 22\n")
    assert scan_cache.fingerprint() != first


def test_the_cache_is_private_written_whole_and_holds_no_secret(tmp_path: Path, cache_home: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    secret = "hf_" + "Q" * 34
    (tree / "train.py").write_text(
        f'import torch\nHF_TOKEN = "{secret}"; x = torch.zeros(1).cuda()  # password=hunter2secret\n'
    )
    result = scan_tree(str(tree), cache=True)
    assert any(s.kind == "device-hardcode" for s in result.signals)
    path = scan_cache.cache_path(str(tree))
    data = path.read_bytes()
    assert secret.encode() not in data
    assert b"hunter2secret" not in data
    assert b"<redacted>" in data
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no partial file left


def test_the_command_caches_by_default_and_not_with_no_cache(tmp_path: Path, cache_home: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    runner = CliRunner()
    off = runner.invoke(cli, ["audit", str(tree), "--no-env", "--target", "xpu", "--no-cache", "--json"])
    assert off.exit_code == 0, off.output
    assert not (cache_home / "envsnap").exists()
    on = runner.invoke(cli, ["audit", str(tree), "--no-env", "--target", "xpu", "--json"])
    assert on.exit_code == 0, on.output
    assert scan_cache.cache_path(str(tree)).is_file()
    assert on.output == off.output


def test_an_unwritable_cache_folder_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    assert scan_tree(str(tmp_path), cache=True) == scan_tree(str(tmp_path))


def test_old_trees_are_pruned(tmp_path: Path, cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_cache, "MAX_FILES", 2)
    for n in range(4):
        tree = tmp_path / f"tree{n}"
        tree.mkdir()
        (tree / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
        scan_tree(str(tree), cache=True)
    kept = sorted(p.name for p in (cache_home / "envsnap" / scan_cache.FOLDER).iterdir())
    assert len(kept) == 2
    assert scan_cache.cache_path(str(tmp_path / "tree3")).name in kept
