"""25 fuzz: mutated model files through audit's readers, mutated bundles through bundle loading.

Real files are the seeds: a ``torch.save`` checkpoint (zip, deflated and stored), a TorchScript
archive, a safetensors file, an ONNX header and a GGUF header for audit; a recorded bundle (as a
zip) for ``verify inspect`` and ``envsnap.verify()``. Hypothesis flips, cuts, inserts and patches
bytes. For every input, audit goes on (the file is read or listed as skipped, the CLI exits 0 or
1) and a bundle is accepted or refused with exit 2 on one line: never exit 3, never a traceback.
Bounded: a few hundred examples in all.
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envsnap
from envsnap.audit.file_scan import scan_file
from envsnap.audit.walk import Entry
from envsnap.errors import BadInput
from tests.audit.test_artifacts_and_hostile import onnx_model
from tests.inprocess.record_models import make_input, make_net
from tests.security.conftest import run_cli


def _torch_zip(compressed: bool) -> bytes:
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(64, dtype=torch.float32), "device": "cuda:0"}, buffer)
    if not compressed:
        return buffer.getvalue()
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info.filename, source.read(info))
    return out.getvalue()


def _safetensors() -> bytes:
    header = b'{"w": {"dtype": "BF16", "shape": [2, 4], "data_offsets": [0, 16]}}'
    return struct.pack("<Q", len(header)) + header + b"\x01" * 16


GGUF = (
    b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + struct.pack("<Q", 20) + b"general.architecture"
    + struct.pack("<IQ", 8, 5) + b"llama" + struct.pack("<Q", 17) + b"general.file_type"
    + struct.pack("<II", 4, 15)
)  # fmt: skip
SEEDS = {
    "model.pt": _torch_zip(False),
    "deflated.pth": _torch_zip(True),
    "weights.safetensors": _safetensors(),
    "model.onnx": onnx_model("trt.plugins"),
    "model.gguf": GGUF,
}


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        how = draw(st.sampled_from(["flip", "cut", "insert", "u16", "u32"]))
        at = draw(st.integers(min_value=0, max_value=max(len(data) - 1, 0)))
        if how == "flip" and data:
            data[at] ^= draw(st.integers(min_value=1, max_value=255))
        elif how == "cut":
            del data[at : at + draw(st.integers(min_value=1, max_value=64))]
        elif how == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif how == "u16" and len(data) >= at + 2:
            data[at : at + 2] = struct.pack("<H", draw(st.sampled_from([0, 1, 8, 99, 0xFFFF])))
        elif how == "u32" and len(data) >= at + 4:
            data[at : at + 4] = struct.pack("<I", draw(st.sampled_from([0, 1, 0x7FFFFFFF, 0xFFFFFFFF])))
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), name=st.sampled_from(sorted(SEEDS)))
def test_mutated_model_files_never_stop_the_audit(data: st.DataObject, name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(data.draw(mutated(SEEDS[name])))
    signals, skipped, _ = scan_file(Entry(str(path), name, "artifact"))  # never raises
    assert len(signals) + len(skipped) <= 1
    for item in skipped:
        assert "\n" not in item.reason


def test_mutated_model_files_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, seed in SEEDS.items():
        for i in range(8):
            corrupt = bytearray(seed)
            for j in range(i + 1):
                corrupt[(j * 7919 + i * 104729) % len(corrupt)] ^= 0x5A
            (tmp_path / f"{i}-{name}").write_bytes(bytes(corrupt))
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    code, out, err = run_cli(capsys, "audit", str(tmp_path), "--target", "rocm", "--no-env")
    assert code in (0, 1), err
    assert "Traceback" not in out + err


@pytest.fixture(scope="module")
def bundle_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed bundle, as a zip file (a path: hypothesis prints it with a failing example)."""
    folder = tmp_path_factory.mktemp("fuzz-bundle")
    net = make_net()
    with envsnap.record(folder / "b.envsnap", model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    seed = folder / "seed.zip"
    with zipfile.ZipFile(seed, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member in sorted((folder / "b.envsnap").iterdir()):
            archive.write(member, member.name)
    return seed


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_bundles_are_accepted_or_refused_with_exit_2(
    data: st.DataObject, bundle_zip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fuzz.envsnap.zip"
    path.write_bytes(data.draw(mutated(bundle_zip.read_bytes())))
    code, _, err = run_cli(capsys, "verify", "inspect", str(path))
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1, err
    refused: list[str] = []
    try:
        with envsnap.verify(path, model=make_net(), environment="none", slow=None, measure=False) as v:
            make_net()(v.inputs)
    except BadInput as err_:  # the only exception a hostile bundle may raise
        refused.append(str(err_))
    assert all("\n" not in message for message in refused)
