"""The lines read since blind round 16 (a sentence telling what ``nvcc -V`` answered; a ``pytorch==X``
pin; sw_vers' ``ProductName``/``ProductVersion``; ``ldconfig -p`` rows of cuDNN; a source-built torch
beside a nightly companion) sit beside free text: terminal escapes, Rich markup, a huge field and a
secret around them never reach the output as such, the facts are still read, and nothing hostile is
taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "nvcc-sentence": (
        f"{HOSTILE[:300]} !nvidia-smi shows CUDA 12.2, but !nvcc -V shows 11.2 CUDA Compiler version "
        f"{HOSTILE[:300]}\n    torch.__version__  = 2.1.0+cu118\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "nvcc-sentence-hostile-version": (
        "nvcc -V shows 11.2\x1b]0;PWNED\x07[bold red]X[/]\ntorch.__version__ = 2.1.0+cu118\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "pytorch-pin": (
        "Cuda compilation tools, release 11.3, V11.3.109\n"
        f"My environment is `pytorch==1.7.1+cu110` {HOSTILE[:300]} and `deepspeed==0.6.5`\n"
        f"pytorch=={HOSTILE[:200]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "sw-vers": (
        f"{HOSTILE[:300]}\n>> sw_vers\nProductName:\tmacOS\nProductVersion:\t12.7.6\n"
        f"BuildVersion:\t{HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "sw-vers-hostile-version": (
        f"ProductName:\tmacOS\nProductVersion:\t12.7.6{HOSTILE[:200]}\nPython 3.12.4\nHF_TOKEN={SECRET}\n"
    ),
    "ldconfig-rows": (
        f"Could not load library libcudnn_ops_infer.so.8. {HOSTILE[:300]}\n"
        "        libcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9\n"
        f"        libcudnn.so.10 (libc6,x86-64) => /lib/{HOSTILE[:300]}\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "nightly-companion": (
        "PyTorch version: 1.13.0a0+gitcbdb694\nCUDA used to build PyTorch: None\n"
        f"OS: macOS 12.4 (x86_64) {HOSTILE[:200]}\n[pip3] torch==1.13.0a0+gitcbdb694\n"
        f"[pip3] torchvision==0.13.0.dev20220517\n[pip3] {HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_nvcc_sentence_still_counts_beside_hostile_text() -> None:
    snapshot = snapshot_of(PASTES["nvcc-sentence"])
    assert snapshot.toolkits is not None
    assert snapshot.toolkits.cuda is not None
    assert snapshot.toolkits.cuda.version == "11.2"
    assert ("nvcc-torch-cuda-mismatch", "info") in findings_of(PASTES["nvcc-sentence"])


def test_a_hostile_nvcc_answer_is_not_taken_whole() -> None:
    snapshot = snapshot_of(PASTES["nvcc-sentence-hostile-version"])
    cuda = snapshot.toolkits.cuda if snapshot.toolkits else None
    assert cuda is None or all(c not in (cuda.nvcc_version or "") for c in "[\x1b\x07")


def test_the_pin_is_read_and_a_hostile_one_is_not() -> None:
    snapshot = snapshot_of(PASTES["pytorch-pin"])
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is not None
    assert torch.version == "1.7.1+cu110"
    assert all("\x1b" not in p.version and len(p.version) <= 61 for p in snapshot.packages or ())


def test_sw_vers_is_read_and_a_hostile_version_is_not() -> None:
    snapshot = snapshot_of(PASTES["sw-vers"])
    assert snapshot.host is not None
    assert snapshot.host.os_name == "macOS 12.7.6"
    hostile = snapshot_of(PASTES["sw-vers-hostile-version"])
    assert hostile.host is None or "12.7.6" not in (hostile.host.os_name or "")


def test_only_the_clean_ldconfig_row_is_taken() -> None:
    snapshot = snapshot_of(PASTES["ldconfig-rows"])
    assert snapshot.toolkits is not None
    assert snapshot.toolkits.cudnn is not None
    assert snapshot.toolkits.cudnn.version == "9"
    assert snapshot.toolkits.cudnn.path == "/lib/x86_64-linux-gnu/libcudnn_ops.so.9"


def test_the_nightly_pair_stays_quiet_beside_hostile_text() -> None:
    assert ("companion-version-mismatch", "error") not in findings_of(PASTES["nightly-companion"])
