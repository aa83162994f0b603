"""The readers added after blind round 10 (hipconfig, xpu-smi discovery rows, ggml's Vulkan device lines,
IPEX's no-device line, lspci's NVIDIA device at 'rev ff') get the hostile-input checks the other readers
have: terminal escapes, Rich markup, a huge field and a secret in the paste never reach the output as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import HOSTILE, SECRET, check_paste_safely, run_cli

PASTES = {
    "hipconfig": (
        f"HIP version  : 6.2.41133-{HOSTILE[:150]}\n"
        f"ROCM_PATH    : /opt/rocm-6.2.0/{HOSTILE}\n"
        f"HIP_PLATFORM : {HOSTILE[:300]}\nHF_TOKEN={SECRET}\n"
    ),
    "xpu-smi-discovery": (
        f"| 0         | Device Name: Intel(R) {HOSTILE[:80]} |\n"
        f"|           | Device Name: Intel(R) Arc {HOSTILE} |\nHF_TOKEN={SECRET}\n"
    ),
    "vulkan-devices": (
        f"ggml_vulkan: 0 = Intel(R) {HOSTILE[:150]} (Intel open-source Mesa driver) | uma: 1 | fp16: 1\n"
        f"ggml_vulkan: 1 = AMD Radeon {HOSTILE[:100]} (RADV GFX1151) (radv) | uma: 1 | {HOSTILE}\n"
        f"ggml_vulkan: 2 = NVIDIA GeForce RTX 3060 (NVIDIA) | uma: 0 | fp16: 1\nHF_TOKEN={SECRET}\n"
    ),
    "ipex-no-device": (
        f"{HOSTILE[:300]} UserWarning: DPCPP Device count is zero! {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "lspci-rev-ff": (
        "No devices were found\n"
        f"01:00.0 VGA compatible controller: NVIDIA Corporation {HOSTILE[:80]} (rev ff)\n"
        f"01:00.0 VGA compatible controller: NVIDIA Corporation Device 249d (rev ff) {HOSTILE}\n"
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


def test_the_hostile_lspci_paste_still_finds_the_lost_gpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not refused and not merely survived: the hostile lspci line still yields the GPU-health error."""
    path = tmp_path / "lspci.txt"
    path.write_text(PASTES["lspci-rev-ff"])
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1
    assert "gpu-health" in out
