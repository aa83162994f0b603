"""The lines read since blind round 19 (torch's "CUDA out of memory. Tried to allocate", NCCL's "unhandled
cuda error", xFormers' "built for" naming the installed torch) sit beside free text: terminal escapes, Rich
markup, a huge field and a secret around them never reach the output as such, the lines are still read,
and nothing hostile is taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "out-of-memory": (
        f"{HOSTILE[:300]}\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.69 GiB "
        f"(GPU 0; \x1b[31m14.56 GiB total capacity; {HOSTILE[:200]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "nccl-hostile-path": (
        "RuntimeError: NCCL error in: /pytorch/\x1b]0;PWNED\x07[red]X[/red]/ProcessGroupNCCL.cpp:784, "
        f"unhandled cuda error, NCCL version 2.7.8\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "xformers-same-torch": (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        f"    PyTorch 2.6.0+cu118 with CUDA 1107 (you have 2.6.0+cu118)\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "xformers-hostile-version": (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.6.0+cu118\x1b]0;X\x07 with CUDA 1107 "
        "(you have 2.6.0+cu118\x1b]0;X\x07[bold red]X[/])\n"
        f"{HOSTILE[:500]}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_out_of_memory_line_is_read_beside_hostile_text() -> None:
    assert "cuda-out-of-memory" in kinds_of(PASTES["out-of-memory"])
    assert findings_of(PASTES["out-of-memory"]) == set()


def test_an_nccl_line_keeps_a_bounded_text_without_the_huge_field() -> None:
    snapshot = snapshot_of(PASTES["nccl-hostile-path"])
    origin = snapshot.meta.origin
    messages = [m for m in (origin.messages if origin else None) or () if m.kind == "nccl-cuda-error"]
    assert messages
    assert len(messages[0].text) <= 300
    assert "M" * 300 not in messages[0].text


def test_a_hostile_version_never_makes_the_two_torches_equal() -> None:
    """The escapes sit inside both versions: the strings still differ from a clean tag, and the warning is
    judged as xFormers' own word that the builds differ (as before this round), never taken as the same."""
    text = PASTES["xformers-hostile-version"]
    assert "xformers-extensions-not-loaded" not in kinds_of(text)


def test_the_same_torch_is_no_finding_beside_hostile_text() -> None:
    text = PASTES["xformers-same-torch"]
    assert "xformers-extensions-not-loaded" in kinds_of(text)
    assert ("companion-version-mismatch", "error") not in findings_of(text)
