"""The lines read or judged since blind round 21 (Unsloth's start-up banner, CUDA error 804's "forward
compatibility was attempted on non supported HW", bitsandbytes' CPU library named in backticks, xFormers'
"built for ... (you have ...)" block) sit beside free text: terminal escapes, Rich markup, a huge field and a
secret around them never reach the output as such, the lines are still read, and nothing hostile is taken
in."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.importers.evidence import read
from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

BANNER_GPU = (
    "   \\\\   /|    NVIDIA GeForce RTX 5090. Num GPUs = 1. Max memory: 31.345 GB. Platform: Linux.\n"
)
BANNER_TORCH = "O^O/ \\_/ \\    Torch: 2.6.0+cu124. CUDA: 12.0. CUDA Toolkit: 12.4. Triton: 3.2.0\n"

PASTES = {
    "unsloth-banner": (
        f"{HOSTILE[:300]}\n{BANNER_GPU}{BANNER_TORCH}\x1b[31m[bold red]{HOSTILE[:200]}[/]\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "unsloth-hostile-name": (
        "   \\\\   /|    NVIDIA GeForce RTX 5090\x1b]0;PWNED\x07[link=file:///etc/passwd]x[/link]. "
        f"Num GPUs = 1. Max memory: 31.345 GB. Platform: Linux.\n{BANNER_TORCH}HF_TOKEN={SECRET}\n"
    ),
    "unsloth-huge-name": (
        f"   \\\\   /|    NVIDIA GeForce {'R' * 100_000}. Num GPUs = 1. Max memory: 31.345 GB.\n"
        f"{BANNER_TORCH}HF_TOKEN={SECRET}\n"
    ),
    "forward-compat": (
        "ggml_cuda_init: failed to initialize CUDA: forward compatibility was attempted on non supported HW"
        f"\x1b]0;PWNED\x07 [red]{HOSTILE[:200]}[/red]\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "bnb-backticks": (
        "Reports: \u201cRequired library version not found: `libbitsandbytes_cuda124.so` \u2026 "
        "Defaulting to `libbitsandbytes_cpu.so` \u2026 Setup Failed!\u201d "
        f"\x1b[2J[bold]{HOSTILE[:200]}[/bold]\n"
        f"PyTorch: 2.6.0+cu124\n{'x' * 100_000}\nHF_TOKEN={SECRET}\n"
    ),
    "xformers-built-for": (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.8.0.dev20250331+cu128\x1b]0;PWNED\x07)\n"
        f"    Python  3.10.16 (you have [red]3.10.12[/red])\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
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
    facts = [(f.kind, f.value) for f in read(PASTES["unsloth-banner"])]
    assert ("gpu", "NVIDIA GeForce RTX 5090") in facts
    assert ("torch", "2.6.0+cu124") in facts
    assert ("arch-not-in-build", "warning") in findings_of(PASTES["unsloth-banner"])


def test_a_gpu_name_carrying_escapes_or_markup_is_not_taken_whole() -> None:
    """The name stops at the first character a product name has not: the escape, the markup and the link
    after it are never part of the GPU name kept."""
    facts = read(PASTES["unsloth-hostile-name"])
    assert ("torch", "2.6.0+cu124") in [
        (f.kind, f.value) for f in facts
    ]  # the banner's torch line still read
    names = [f.value for f in facts if f.kind == "gpu"]
    for name in names:
        assert "\x1b" not in name
        assert "[link" not in name
        assert "PWNED" not in name


def test_a_huge_gpu_name_in_the_banner_is_not_kept_whole() -> None:
    facts = read(PASTES["unsloth-huge-name"])
    assert ("torch", "2.6.0+cu124") in [(f.kind, f.value) for f in facts]
    names = [f.value for f in facts if f.kind == "gpu"]
    assert all(len(name) <= 200 for name in names)
    snapshot = snapshot_of(PASTES["unsloth-huge-name"])
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert all(len(d.name or "") <= 200 for d in (nvidia.devices if nvidia else None) or ())


def test_the_forward_compat_line_is_judged_and_kept_bounded() -> None:
    """CUDA error 804 beside an OSC title, markup and a huge field: still judged, the kept line bounded."""
    text = PASTES["forward-compat"]
    assert "driver-forward-compat" in kinds_of(text)
    assert ("driver-too-old-for-cuda-build", "error") in findings_of(text)
    origin = snapshot_of(text).meta.origin
    kept = [m for m in (origin.messages if origin else None) or () if m.kind == "driver-forward-compat"]
    assert kept
    # Kept as printed but bounded (the renderers escape it: check_paste_safely above covers the output).
    assert all(len(m.text) <= 300 and m.text.startswith("ggml_cuda_init: failed") for m in kept)


def test_the_backticked_cpu_library_is_read_beside_a_huge_field() -> None:
    text = PASTES["bnb-backticks"]
    assert "bitsandbytes-cpu" in kinds_of(text)
    assert ("bitsandbytes-cpu-fallback", "error") in findings_of(text)


def test_a_hostile_you_have_value_is_not_taken_as_torch_or_python() -> None:
    facts = [(f.kind, f.value) for f in read(PASTES["xformers-built-for"])]
    assert ("torch", "2.6.0+cu124") not in facts
    assert ("python", "3.10.16") not in facts
    assert not any("\x1b" in value or "[red]" in value for _, value in facts)
