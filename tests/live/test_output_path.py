"""Report paths: tried for real before any work, default names that don't collide, no silent overwrite."""

from __future__ import annotations

import errno
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.live.output_path import check_writable, default_report_path, write_report

NOON = datetime(2026, 11, 29, 12, 0, 5, 123456, tzinfo=timezone.utc)


@pytest.mark.parametrize("path", ["/proc/envsnap-report.yaml", "/sys/envsnap-report.yaml"])
def test_pseudo_filesystems_are_refused_even_where_os_access_says_yes(path: str) -> None:
    # As root os.access(W_OK) is true for /proc and /sys; creating a file there still fails.
    with pytest.raises(BadInput, match=f"--report {path}: cannot write: "):
        check_writable(Path(path))


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"--report .*: is a directory"):
        check_writable(tmp_path)


def test_a_writable_path_passes_and_leaves_nothing_behind(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    check_writable(tmp_path / "runs" / "r.yaml", flag="--report")
    assert list((tmp_path / "runs").iterdir()) == []


def test_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    # A typo in --report must not leave a tree of folders behind.
    path = tmp_path / "runz" / "deep" / "r.yaml"
    with pytest.raises(BadInput, match=r"^--report .*/r\.yaml: cannot write: no such folder .*/runz/deep "):
        check_writable(path, flag="--report")
    assert list(tmp_path.iterdir()) == []


def test_a_device_is_written_through() -> None:
    check_writable(Path(os.devnull))
    assert write_report(Path(os.devnull), "x: 1\n", overwrite=False) == Path(os.devnull)


def test_default_names_carry_milliseconds_and_the_pid() -> None:
    name = default_report_path("envsnap-run", now=NOON, pid=4242)
    assert name == Path("envsnap-run-20261129T120005.123Z-4242.yaml")
    # Two ranks started in the same millisecond still get different names.
    assert default_report_path("envsnap-run", now=NOON, pid=4243) != name
    assert re.fullmatch(
        rf"envsnap-watch-\d{{8}}T\d{{6}}\.\d{{3}}Z-{os.getpid()}\.yaml",
        default_report_path("envsnap-watch").name,
    )


def test_without_overwrite_an_existing_report_is_kept_and_a_suffix_is_used(tmp_path: Path) -> None:
    path = tmp_path / "envsnap-run-x.yaml"
    path.write_text("first\n", encoding="utf-8")

    second = write_report(path, "second\n", overwrite=False)
    third = write_report(path, "third\n", overwrite=False)

    assert (second.name, third.name) == ("envsnap-run-x-1.yaml", "envsnap-run-x-2.yaml")
    assert path.read_text(encoding="utf-8") == "first\n"
    assert second.read_text(encoding="utf-8") == "second\n"
    assert third.read_text(encoding="utf-8") == "third\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "envsnap-run-x-1.yaml",
        "envsnap-run-x-2.yaml",
        "envsnap-run-x.yaml",
    ]


def test_without_hard_links_exclusive_creation_still_never_overwrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: object, dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "r.yaml"
    path.write_text("first\n", encoding="utf-8")

    written = write_report(path, "second\n", overwrite=False)

    assert written == tmp_path / "r-1.yaml"
    assert written.read_text(encoding="utf-8") == "second\n"
    assert path.read_text(encoding="utf-8") == "first\n"
    assert not list(tmp_path.glob("*.partial"))


def test_a_name_the_user_gave_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("old\n", encoding="utf-8")
    assert write_report(path, "new\n", overwrite=True) == path
    assert path.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.yaml"]


def test_a_failed_write_is_bad_input_and_leaves_no_partial_file(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot write"):
        write_report(tmp_path / "missing" / "r.yaml", "x\n", overwrite=False)
    assert list(tmp_path.iterdir()) == []
