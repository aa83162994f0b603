"""The lines read since blind round 14 (Ultralytics' device banner, ``Python-3.10.12 torch-2.4.1+cu121
CUDA:0 (Tesla T4, 15102MiB)``; an Intel GPU as a ``GPU :`` value; torch.xpu's 'Torch not compiled with XPU
enabled'; a launcher's 'nVidia toolkit detected') sit beside free text: terminal escapes, Rich markup, a
huge field and a secret around them never reach the output as such, the facts are still read, and nothing
of the hostile text is taken into them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "yolo-banner": (
        f"{HOSTILE[:300]} Ultralytics 8.3.17 🚀 Python-3.10.12 torch-2.4.1+cpu CUDA:0 (Tesla T4, 15102MiB)\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "yolo-banner-hostile-gpu": (
        "Ultralytics 8.3.17 🚀 Python-3.10.12 torch-2.4.1+cu121 "
        "CUDA:0 (NVIDIA [bold red]X[/]\x1b]0;PWNED\x07, "
        f"15102MiB)\nHF_TOKEN={SECRET}\n"
    ),
    "intel-gpu-key": (
        f"AssertionError: Torch not compiled with XPU enabled {HOSTILE[:200]}\n"
        f"GPU : Intel Arc A750 8GB {HOSTILE[:400]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "launcher-line": (
        f">INFO     nVidia toolkit detected {HOSTILE[:300]}\n>INFO     Torch 2.0.1+cpu\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_banner_is_read_beside_hostile_text() -> None:
    snapshot = snapshot_of(PASTES["yolo-banner"])
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is not None
    assert torch.version == "2.4.1+cpu"
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert [d.name for d in nvidia.devices or ()] == ["Tesla T4"]


def test_a_hostile_gpu_name_in_the_banner_is_not_taken() -> None:
    snapshot = snapshot_of(PASTES["yolo-banner-hostile-gpu"])
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    names = [d.name or "" for d in nvidia.devices or ()] if nvidia is not None else []
    assert all("\x1b" not in n and "[" not in n and "PWNED" not in n for n in names)


def test_an_intel_gpu_value_is_bounded() -> None:
    snapshot = snapshot_of(PASTES["intel-gpu-key"])
    intel = snapshot.accelerators.intel if snapshot.accelerators else None
    assert intel is not None
    assert all(len(d.name or "") <= 80 for d in intel.devices or ())
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(PASTES["intel-gpu-key"])


def test_the_launcher_line_still_counts_beside_hostile_text() -> None:
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(PASTES["launcher-line"])
