"""The line judged since blind round 22 (TensorFlow's "Ignoring visible gpu device (...) with Cuda
compute capability X. The minimum required Cuda capability is Y.") sits beside free text: terminal escapes,
Rich markup, a huge field and a secret around it never reach the output as such, the line is still judged,
and what is kept of it is bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

TF_LINE = (
    "2018-12-08 02:10:10.136463: I T:\\src\\github\\tensorflow\\tensorflow\\core\\common_runtime\\gpu\\"
    "gpu_device.cc:1455] Ignoring visible gpu device (device: 0, name: GeForce 820M, pci bus id: "
    "0000:08:00.0, compute capability: 2.1) with Cuda compute capability 2.1. The minimum required Cuda "
    "capability is 3.0.\n"
)

PASTES = {
    "tf-minimum-beside-hostile": (
        f"{HOSTILE[:300]}\n{TF_LINE}\x1b[31m[bold red]{HOSTILE[:200]}[/]\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "tf-minimum-hostile-name": (
        "Ignoring visible gpu device (device: 0, name: GeForce\x1b]0;PWNED\x07"
        "[link=file:///etc/passwd]x[/link], pci bus id: 0000:08:00.0, compute capability: 2.1) with Cuda "
        "compute capability 2.1. The minimum required Cuda capability is 3.0.\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "tf-minimum-huge-name": (
        f"Ignoring visible gpu device (device: 0, name: GeForce {'R' * 100_000}, compute capability: "
        "2.1) with Cuda compute capability 2.1. The minimum required Cuda capability is 3.0.\n"
        f"HF_TOKEN={SECRET}\n{TF_LINE}"
    ),
    "jax-backend-hostile-reason": (
        "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable\x1b]0;PWNED\x07 [red]to[/red] "
        f"load CUDA {'x' * 100_000}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "ort-provider-hostile-path": (
        'FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\\[link=file:///etc/passwd]x[/link]'
        f'\x1b[2J\\onnxruntime_providers_cuda.dll"\n{HOSTILE}\nHF_TOKEN={SECRET}\n'
    ),
    "paddle-error-35-markup": (
        f"OSError: (External) [bold]Cuda error(35)[/bold]\x1b[31m, {HOSTILE[:200]}\n{'y' * 100_000}\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "echo-hostile-value": (
        "> echo $CUDA_VISIBLE_DEVICES\nMIG-ff9ad03d\x1b]0;PWNED\x07[link=file:///etc/passwd]x[/link]\n"
        f"echo $HIP_VISIBLE_DEVICES\n{'1,' * 50_000}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_line_is_judged_beside_hostile_text() -> None:
    text = PASTES["tf-minimum-beside-hostile"]
    assert "tf-gpu-below-minimum" in kinds_of(text)
    assert ("arch-not-in-build", "error") in findings_of(text)


def test_a_hostile_name_is_kept_bounded_and_rendered_escaped() -> None:
    """The name inside the parentheses is free text: the kept sentence is bounded (check_paste_safely above
    proves the escape and the link never reach the terminal as such)."""
    origin = snapshot_of(PASTES["tf-minimum-hostile-name"]).meta.origin
    kept = [m for m in (origin.messages if origin else None) or () if m.kind == "tf-gpu-below-minimum"]
    assert kept
    assert all(len(m.text) <= 300 and m.text.startswith("Ignoring visible gpu device") for m in kept)
    assert all(SECRET not in m.text for m in kept)


def test_a_huge_name_is_not_matched_and_the_real_line_after_it_is() -> None:
    origin = snapshot_of(PASTES["tf-minimum-huge-name"]).meta.origin
    kept = [m for m in (origin.messages if origin else None) or () if m.kind == "tf-gpu-below-minimum"]
    assert len(kept) == 1
    assert "GeForce 820M" in kept[0].text
    assert "R" * 300 not in kept[0].text


def _kept(name: str, kind: str) -> list[str]:
    origin = snapshot_of(PASTES[name]).meta.origin
    return [m.text for m in (origin.messages if origin else None) or () if m.kind == kind]


def test_jaxs_warning_with_a_hostile_reason_is_kept_bounded() -> None:
    kept = _kept("jax-backend-hostile-reason", "jax-cuda-backend-failed")
    assert kept
    assert all(len(text) <= 300 and SECRET not in text for text in kept)


def test_onnxruntimes_line_with_a_hostile_path_is_read_and_bounded() -> None:
    kept = _kept("ort-provider-hostile-path", "ort-cuda-provider-not-loaded")
    assert kept
    assert all(len(text) <= 300 and SECRET not in text for text in kept)


def test_paddles_error_35_beside_markup_and_a_huge_line_is_judged() -> None:
    text = PASTES["paddle-error-35-markup"]
    assert "driver-insufficient" in kinds_of(text)
    assert ("driver-too-old-for-cuda-build", "error") in findings_of(text)


def test_an_echoed_value_carrying_escapes_or_a_huge_list_is_not_taken() -> None:
    """The value line must be a device list alone: an escape or markup on it, or a list past 4,096
    characters, and nothing is read from the echo."""
    try:
        environment = snapshot_of(PASTES["echo-hostile-value"]).environment
    except BadInput:
        environment = None
    variables = dict(environment.variables or {}) if environment is not None else {}
    assert "CUDA_VISIBLE_DEVICES" not in variables
    assert all(len(value) <= 4096 for value in variables.values())
    assert not any("\x1b" in value or "[link" in value for value in variables.values())
