"""25.6, 25.10, 25.16: record bundles are checked within caps before anything big is read.

6. A sparse multi-GB member of a bundle folder is refused before it is read (its size must be the
   manifest's), and a zip's central directory is sized up before ``zipfile`` parses it: a zip of
   200,000 entries is refused (bundles and audit's torch checkpoints alike) without the hundreds
   of MB ``zipfile`` would spend. Measured as Python's peak allocation, not time.
10. Hostile bundles exit 2, never 3: corrupt compressed data, a zip "version needed" of 9.9,
    JSON nested past the recursion limit in a tensor header or the manifest.
16. A tensor named with a lone surrogate (``"\\ud800"``) is refused by the check, not by
    safetensors inside ``verify()``.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import envsnap
from envsnap.errors import BadInput
from envsnap.inprocess.bundle.check import check_bundle, check_tensor_file
from tests.inprocess.record_models import make_input, make_net
from tests.security.conftest import run_cli

PEAK_LIMIT = 48 * 1024 * 1024


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("good") / "baseline.envsnap"
    net = make_net()
    with envsnap.record(path, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    return path


def _copy(good: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(good, target)
    return target


def _zip(folder: Path, target: Path, method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(target, "w", compression=method) as archive:
        for member in sorted(folder.iterdir()):
            archive.write(member, member.name)
    return target


def _peak(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def _refuses(path: Path) -> None:
    with pytest.raises(BadInput):
        check_bundle(path)


def _exit_2(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "verify", "inspect", str(path))
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    with pytest.raises(BadInput):
        envsnap.verify(path, model=make_net(), environment="none")


def test_a_sparse_member_is_refused_before_it_is_read(good: Path, tmp_path: Path) -> None:
    bundle = _copy(good, tmp_path)
    os.truncate(bundle / "activations.safetensors", 600 * 1024 * 1024)  # a hole: 600 MB read as zeros
    assert _peak(lambda: _refuses(bundle)) < PEAK_LIMIT


def many_entries_zip(path: Path, count: int, name: bytes = b"manifest.json") -> Path:
    """A zip whose central directory lists ``count`` empty stored entries (no local data needed)."""
    entry = (
        struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0, 0)
        + name
    )
    directory = entry * count
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                      len(directory), 0, 0)  # fmt: skip
    path.write_bytes(directory + end)
    return path


def test_a_zip_bundle_with_200k_entries_is_refused_before_zipfile_parses_it(tmp_path: Path) -> None:
    path = many_entries_zip(tmp_path / "many.zip", 200_000)
    assert _peak(lambda: _refuses(path)) < PEAK_LIMIT


def test_an_audited_checkpoint_with_200k_entries_is_skipped_before_zipfile_parses_it(tmp_path: Path) -> None:
    from envsnap.audit.file_scan import scan_file
    from envsnap.audit.scan_cache import FileResult
    from envsnap.audit.walk import Entry

    path = tmp_path / "model.pt"
    many_entries_zip(path, 200_000, b"archive/data/0")
    path.write_bytes(b"PK\x03\x04" + path.read_bytes())  # the local-header magic audit looks for
    result: list[FileResult] = []
    peak = _peak(lambda: result.append(scan_file(Entry(str(path), "model.pt", "artifact"))))
    assert peak < PEAK_LIMIT
    ((signals, skipped, _),) = result
    assert signals == []
    assert "entries" in skipped[0].reason


def test_corrupt_compressed_data_exits_2(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _zip(good, tmp_path / "deflated.zip", zipfile.ZIP_DEFLATED)
    data = bytearray(path.read_bytes())
    at = data.find(b"activations.safetensors") + len("activations.safetensors")
    data[at + 16 : at + 48] = b"\xff" * 32
    path.write_bytes(bytes(data))
    _exit_2(path, capsys)


def test_a_zip_needing_version_9_9_exits_2(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _zip(good, tmp_path / "future.zip")
    data = bytearray(path.read_bytes())
    start = 0
    while (at := data.find(b"PK\x01\x02", start)) >= 0:
        data[at + 6 : at + 8] = (99).to_bytes(2, "little")
        start = at + 4
    path.write_bytes(bytes(data))
    _exit_2(path, capsys)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_json_nested_past_the_recursion_limit_exits_2(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _copy(good, tmp_path)
    header = ('{"x": {"dtype": "U8", "shape": ' + _deep(100_000) + ', "data_offsets": [0, 0]}}').encode()
    (bundle / "activations.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    _exit_2(bundle, capsys)
    shutil.copy(good / "activations.safetensors", bundle / "activations.safetensors")
    (bundle / "manifest.json").write_text('{"format": "envsnap-record", "calls": ' + _deep(100_000) + "}")
    _exit_2(bundle, capsys)


def _forge(header: dict[str, object], data: bytes) -> bytes:
    text = json.dumps(header).encode()  # ensure_ascii: a lone surrogate is written as \ud800
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize(
    "header",
    [
        {"\ud800": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
        {"__metadata__": {"\udfff": "x"}, "t": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
        {"__metadata__": {"k": "\ud800"}, "t": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}},
    ],
    ids=["tensor-name", "metadata-key", "metadata-value"],
)
def test_a_lone_surrogate_name_is_refused_by_the_check(header: dict[str, object]) -> None:
    with pytest.raises(BadInput, match="UTF-8"):
        check_tensor_file(_forge(header, b"\0"), "activations.safetensors")
