"""The lines read since blind round 18 (torch's sm_XX warning by its first sentence alone, as issue titles
quote it; collect_env's "CUDA used to build PyTorch: None/Could not collect" as a CPU-only build) sit
beside free text: terminal escapes, Rich markup, a huge field and a secret around them never reach the
output as such, the facts are still read, and nothing hostile is taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "sm-warning-first-sentence": (
        "# Bug Report:NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the "
        f"current PyTorch installation. {HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "sm-warning-hostile-name": (
        f"\x1b[31m[bold red]X[/] {'M' * 100} NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not "
        f"compatible with the current PyTorch installation.\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "build-line-without-cuda": (
        f"conda install pytorch pytorch-cuda=11.8 -c pytorch-nightly {HOSTILE[:300]}\n"
        "PyTorch version: 2.1.0.dev20230905\nIs debug build: False\n"
        f"CUDA used to build PyTorch: Could not collect\n{HOSTILE[:200]}\nROCM used to build PyTorch: N/A\n"
        f"Is CUDA available: False\nCUDA runtime version: 11.8.89\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "build-line-hostile-value": (
        "PyTorch version: 2.1.0\n"
        f"CUDA used to build PyTorch: \x1b]0;None\x07{HOSTILE[:200]}\nCUDA runtime version: 11.8.89\n"
        f"HF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_first_sentence_still_counts_beside_hostile_text() -> None:
    assert ("arch-not-in-build", "error") in findings_of(PASTES["sm-warning-first-sentence"])
    accelerators = snapshot_of(PASTES["sm-warning-first-sentence"]).accelerators
    assert accelerators is not None
    assert accelerators.nvidia is not None
    assert [(d.name, d.compute_capability) for d in accelerators.nvidia.devices or ()] == [
        ("NVIDIA GeForce RTX 5070 Ti", "12.0")
    ]


def test_a_hostile_gpu_name_is_not_taken_whole() -> None:
    accelerators = snapshot_of(PASTES["sm-warning-hostile-name"]).accelerators
    devices = accelerators.nvidia.devices if accelerators and accelerators.nvidia else ()
    assert devices
    assert [d.compute_capability for d in devices] == ["12.0"]
    for device in devices:
        assert "\x1b" not in (device.name or "")
        assert "[" not in (device.name or "")
        assert len(device.name or "") <= 80


def test_the_build_line_is_read_beside_hostile_text() -> None:
    text = PASTES["build-line-without-cuda"]
    assert "torch-build-no-cuda" in kinds_of(text)
    frameworks = snapshot_of(text).frameworks
    assert frameworks is not None
    assert frameworks.torch is not None
    assert frameworks.torch.cuda is None
    assert ("cpu-only-build-with-cuda-installed", "info") in findings_of(text)


def test_a_hostile_build_value_states_nothing() -> None:
    text = PASTES["build-line-hostile-value"]
    assert "torch-build-no-cuda" not in kinds_of(text)
    assert ("cpu-only-build-with-cuda-installed", "info") not in findings_of(text)
