"""The lines read or judged since blind round 20 (torch's "is not currently implemented for the MPS device",
HIP's "hipErrorNoBinaryForGpu" beside an NVIDIA GPU) sit beside free text: terminal escapes, Rich markup, a
huge field and a secret around them never reach the output as such, the lines are still read, and nothing
hostile is taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "mps-not-implemented": (
        f"{HOSTILE[:300]}\nNotImplementedError: The operator 'aten::_index_put_impl_' is not current "
        f"implemented for the MPS device. \x1b[31m[bold red]{HOSTILE[:200]}[/]\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "mps-hostile-operator": (
        "NotImplementedError: The operator 'aten::\x1b]0;PWNED\x07[red]X[/red]' is not currently implemented "
        f"for the MPS device.\n{HOSTILE[:500]}\n"
        "NotImplementedError: The operator 'aten::_slow_conv2d_forward' is not currently implemented for "
        f"the MPS device.\nHF_TOKEN={SECRET}\n"
    ),
    "hip-on-nvidia": (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
        f"GPU: Nvidia GeForce RTX 3050 Laptop GPU\x1b]0;PWNED\x07 [link=file:///etc/passwd]x[/link]\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "hip-huge-gpu-name": (
        "RuntimeError: HIP error: invalid device function\n"
        f"GPU: NVIDIA GeForce {'R' * 100_000}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_mps_line_is_read_beside_hostile_text() -> None:
    text = PASTES["mps-not-implemented"]
    assert "mps-op-not-implemented" in kinds_of(text)
    assert findings_of(text) == set()


def test_an_operator_name_with_escapes_is_not_taken_as_the_mps_line() -> None:
    """The operator pattern takes word characters only: an escape or markup inside it is no operator, so only
    the clean line after it is kept."""
    snapshot = snapshot_of(PASTES["mps-hostile-operator"])
    origin = snapshot.meta.origin
    kept = [m.text for m in (origin.messages if origin else None) or () if m.kind == "mps-op-not-implemented"]
    assert len(kept) == 1
    assert "_slow_conv2d_forward" in kept[0]
    assert "\x1b" not in kept[0]
    assert "[red]" not in kept[0]


def test_the_hip_line_on_an_nvidia_host_is_judged_beside_hostile_text() -> None:
    assert ("build-vendor-mismatch", "error") in findings_of(PASTES["hip-on-nvidia"])


def test_the_kept_hip_line_is_bounded_beside_a_huge_field() -> None:
    snapshot = snapshot_of(PASTES["hip-huge-gpu-name"])
    origin = snapshot.meta.origin
    kept = (origin.messages if origin else None) or ()
    messages = [m for m in kept if m.kind == "hip-invalid-device-function"]
    assert messages
    assert len(messages[0].text) <= 300
    assert "R" * 300 not in messages[0].text
