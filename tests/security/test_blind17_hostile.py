"""The lines read since blind round 17 (torch's "driver too old" without its number; the "Minimum and
Maximum cuda capability" range; pip list rows run together on one line; a release series written
``2.11.x``; ``tf.sysconfig.get_build_info()`` members) sit beside free text: terminal escapes, Rich
markup, a huge field and a secret around them never reach the output as such, the facts are still
read, and nothing hostile is taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "driver-too-old-no-number": (
        f"{HOSTILE[:300]} failed (RuntimeError: The NVIDIA driver on your system is too old) "
        f"{HOSTILE[:300]}\n"
        f"PyTorch Version: 2.1.2+cu121\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "capability-range": (
        f"{HOSTILE[:300]}\nFound GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda "
        f"capability supported by this version of PyTorch is (8.0) - (12.0) {HOSTILE[:300]}\n{HOSTILE}\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "capability-range-hostile-numbers": (
        "Found GPU0 NVIDIA GeForce GTX 1070 which is of cuda capability 6.1.\n"
        "Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        f"(7.0\x1b[31m) - (12.0{HOSTILE[:200]})\nHF_TOKEN={SECRET}\n"
    ),
    "rows-run-together": (
        f"### ONNX Runtime Version {HOSTILE[:200]}\n\n"
        "onnxruntime               1.17.3 onnxruntime-gpu           1.17.1\n"
        f"onnxruntime   1.17.3 onnxruntime-gpu   {HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "wildcard-series": (
        "`pip install torch==2.10.0 torchvision torchaudio`\n"
        f"this results in torchaudio 2.11.x being installed {HOSTILE[:300]}\n"
        f"torchvision 0.{HOSTILE[:100]}.x\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "tf-build-info": (
        f"OrderedDict([('cpu_compiler', '{HOSTILE[:300]}'),\n"
        "             ('cuda_version', '11.2'),\n"
        f"             ('cudnn_version', '8{HOSTILE[:100]}'),\n"
        f"             ('is_cuda_build', True)])\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_driver_message_still_counts_beside_hostile_text() -> None:
    assert ("driver-too-old-for-cuda-build", "error") in findings_of(PASTES["driver-too-old-no-number"])


def test_the_range_is_judged_and_hostile_numbers_are_not_taken() -> None:
    assert kinds_of(PASTES["capability-range"]) == ["gpu-newer-minor"]
    # the range cannot be read through the escape, so the GPU is judged by its capability alone
    assert kinds_of(PASTES["capability-range-hostile-numbers"]) == ["gpu-too-old"]
    devices = snapshot_of(PASTES["capability-range"]).accelerators
    assert devices is not None
    assert devices.nvidia is not None
    assert [(d.name, d.compute_capability) for d in devices.nvidia.devices or ()] == [("NVIDIA GB10", "12.1")]


def test_rows_are_read_and_a_hostile_row_is_not() -> None:
    packages = {p.name: p.version for p in snapshot_of(PASTES["rows-run-together"]).packages or ()}
    assert packages == {"onnxruntime": "1.17.3", "onnxruntime-gpu": "1.17.1"}


def test_the_series_is_read_and_a_hostile_one_is_not() -> None:
    packages = {p.name: p.version for p in snapshot_of(PASTES["wildcard-series"]).packages or ()}
    assert packages["torchaudio"] == "2.11"
    assert "torchvision" not in packages
    assert all("\x1b" not in v and len(v) <= 61 for v in packages.values())


def test_build_info_versions_are_read_and_hostile_ones_are_not() -> None:
    frameworks = snapshot_of(PASTES["tf-build-info"]).frameworks
    tf = frameworks.tensorflow if frameworks is not None else None
    assert tf is not None
    assert tf.build_info is not None
    assert tf.build_info == {"cuda_version": "11.2", "is_cuda_build": "True"}
