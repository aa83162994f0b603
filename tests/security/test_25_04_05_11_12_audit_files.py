"""25.4, 25.5, 25.11 (audit), 25.12: audit's readers against hostile project files.

4. Source lines are redacted before they are cut for display: a token straddling the cut is
   never shown in part (text, JSON, Markdown).
5. One bad file never ends the audit: a corrupt, encrypted, unsupported-method or future-version
   zip inside a model file, or a Python file that exhausts the parser, is listed as unreadable and
   every other file is still judged.
11. A model file swapped for a FIFO is refused by type, never opened in blocking mode.
12. An ONNX file crafted to be millions of tiny protobuf fields costs a bounded number of steps.
"""

from __future__ import annotations

import io
import json
import os
import threading
import zipfile
from pathlib import Path

import pytest

from envsnap.audit.file_scan import scan_file
from envsnap.audit.scan import scan_tree
from envsnap.audit.scan_cache import FileResult
from envsnap.audit.scanners import onnx_proto
from envsnap.audit.walk import Entry
from tests.security.conftest import run_cli

TOKEN = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"[:36]


def _straddling_line() -> str:
    head = "t = torch.zeros(1).cuda(); headers = {'Authorization': '"
    pad = "x" * (125 - len(head)) + " "  # the cut at 160 falls 29 characters into the token
    return f"{head}{pad}{TOKEN}'}}\n"


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_secret_straddling_the_display_cut_is_never_shown_in_part(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "train.py").write_text("import torch\n" + _straddling_line())
    (tmp_path / "Dockerfile").write_text(
        "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install flash-attn " + "y" * 40
        + f" --extra-index-url https://download.pytorch.org/whl/cu121?{TOKEN}\n"
    )  # fmt: skip
    argv = ["audit", str(tmp_path), "--target", "rocm", "--no-env"]
    argv += {"text": [], "json": ["--json"], "markdown": ["--format", "markdown"]}[fmt]
    code, out, err = run_cli(capsys, *argv)
    assert code in (0, 1), err
    assert "cuda" in out.lower()  # the line was reported...
    for start in range(4, len(TOKEN) - 8):
        assert TOKEN[start : start + 8] not in out  # ...with no 8 characters of the token in it


def _zip_bytes(members: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytearray:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return bytearray(buffer.getvalue())


def _set_u16(data: bytearray, signature: bytes, offset: int, value: int) -> bytearray:
    """Patch a 16-bit field at ``offset`` in every header with ``signature``."""
    start = 0
    while (at := data.find(signature, start)) >= 0:
        data[at + offset : at + offset + 2] = value.to_bytes(2, "little")
        start = at + 4
    return data


CHECKPOINT = {
    "archive/data.pkl": b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00X\x06\x00\x00\x00cuda:0" * 40
}


def _bad_checkpoints() -> dict[str, bytes]:
    deflated = _zip_bytes(CHECKPOINT, zipfile.ZIP_DEFLATED)
    corrupt = bytearray(deflated)
    body = corrupt.find(b"archive/data.pkl") + len("archive/data.pkl")
    corrupt[body + 4 : body + 24] = b"\xff" * 20
    stored = _zip_bytes(CHECKPOINT)
    return {
        "unsupported.pt": bytes(
            _set_u16(_set_u16(bytearray(stored), b"PK\x03\x04", 8, 99), b"PK\x01\x02", 10, 99)
        ),
        "encrypted.pth": bytes(
            _set_u16(_set_u16(bytearray(stored), b"PK\x03\x04", 6, 1), b"PK\x01\x02", 8, 1)
        ),
        "future.ckpt": bytes(_set_u16(bytearray(stored), b"PK\x01\x02", 6, 99)),
        "corrupt.bin": bytes(corrupt),
    }


def test_bad_files_are_listed_as_unreadable_and_the_audit_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in _bad_checkpoints().items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "minus.py").write_text("import torch  # cuda\nx = " + "-" * 10_000 + "1\n")
    (tmp_path / "good.py").write_text("import torch\nt = torch.zeros(1).cuda()\n")
    scan = scan_tree(str(tmp_path), workers=1)
    skipped = {s.file: s.reason for s in scan.skipped}
    assert set(skipped) == {*_bad_checkpoints(), "minus.py"}, skipped
    assert all(reason.startswith("unreadable") or "malformed" in reason for reason in skipped.values())
    assert any(s.file == "good.py" for s in scan.signals)
    code, out, err = run_cli(capsys, "audit", str(tmp_path), "--target", "rocm", "--no-env", "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    assert {s["file"] for s in report["skipped"]} >= set(skipped)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["model.pt", "model.safetensors", "model.onnx", "model.gguf"])
def test_a_model_file_swapped_for_a_fifo_is_refused_without_blocking(name: str, tmp_path: Path) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    done: list[FileResult] = []
    worker = threading.Thread(
        target=lambda: done.append(scan_file(Entry(str(fifo), name, "artifact"))), daemon=True
    )
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader so the thread can end, then fail
        with open(fifo, "wb"):
            pass
        worker.join(5)
        pytest.fail("scan_file blocked on a FIFO")
    ((signals, skipped, _),) = done
    assert signals == []
    assert [s.reason for s in skipped] == ["not a regular file"]


def _tiny_fields_onnx(count: int) -> bytes:
    """ir_version, an opset, and a graph of ``count`` empty initializer fields (2 bytes each)."""
    graph = b"\x2a\x00" * count
    length = len(graph)
    varint = bytearray()
    while True:
        byte = length & 0x7F
        length >>= 7
        varint.append(byte | (0x80 if length else 0))
        if not length:
            break
    return b"\x08\x08" + b"\x42\x02\x10\x11" + b"\x3a" + bytes(varint) + graph


def test_an_onnx_file_of_millions_of_tiny_fields_costs_bounded_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "crafted.onnx"
    path.write_bytes(_tiny_fields_onnx(16_000_000))  # 32 MB
    real = onnx_proto._varint
    calls = 0
    bound = 3 * getattr(onnx_proto, "MAX_FIELDS", 1_000_000) + 100

    def counted(data: memoryview | bytes, pos: int, end: int) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        if calls > bound:
            raise AssertionError(f"more than {bound} protobuf reads for one header")
        return real(data, pos, end)

    monkeypatch.setattr(onnx_proto, "_varint", counted)
    signals, skipped, _ = scan_file(Entry(str(path), "crafted.onnx", "artifact"))
    assert signals == []
    assert len(skipped) == 1
    assert "fields" in skipped[0].reason
