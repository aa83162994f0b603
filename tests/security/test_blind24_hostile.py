"""The lines read since blind round 24 (DeepSpeed's "PyTorch version mismatch!", a variable after a bracketed
``[user@host dir]$`` prompt, ComfyUI's "ROCm version: (6, 4)", the runtime's "illegal memory access") sit
beside free text: terminal escapes, Rich markup, a huge field and a secret around them never reach the output
as such, the lines are still read, and what is kept is bounded."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from envsnap.importers.package_lists import hip_of_app_log
from tests.rules.pasted import kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

DEEPSPEED = (
    "RuntimeError: PyTorch version mismatch! DeepSpeed ops were compiled and installed with a different "
    "version than what is being used at runtime. Please re-install DeepSpeed or switch torch versions. "
    "Install torch version=2.3, Runtime torch version=2.2\n"
)
PROMPT = "(venv) [miles@archlinux ComfyUI_backup]$ HSA_OVERRIDE_GFX_VERSION=11.0.0 python3.12 main.py\n"
COMFY = "pytorch version: 2.8.0a0+gitfc14c65\nAMD arch: gfx1150\nROCm version: (6, 4)\nDevice: cuda:0 AMD\n"
ILLEGAL = "jade1        | CUDA error: an illegal memory access was encountered\n"

PASTES = {
    "deepspeed-beside-hostile": (
        f"{HOSTILE[:300]}\n{DEEPSPEED}\x1b[31m[bold red]{HOSTILE[:200]}[/]\nHF_TOKEN={SECRET}\n"
    ),
    "deepspeed-huge-version": (
        DEEPSPEED.replace("version=2.3", "version=" + "2" * 100_000) + f"HF_TOKEN={SECRET}\n{DEEPSPEED}"
    ),
    "prompt-beside-hostile": (
        f"{HOSTILE[:300]}\n{PROMPT}\x1b]0;PWNED\x07[link=file:///etc/passwd]x[/link]\nHF_TOKEN={SECRET}\n"
    ),
    "prompt-huge-dir": (
        f"[u@h {'d' * 100_000}]$ HSA_OVERRIDE_GFX_VERSION=11.0.0 python3 main.py\nHF_TOKEN={SECRET}\n{COMFY}"
    ),
    "comfy-hostile": (
        f"\x1b[32m{COMFY}\x1b[0m{HOSTILE}\nROCm version: ({'6' * 100_000}, 4)\nHF_TOKEN={SECRET}\n"
    ),
    "illegal-address-hostile": f"{HOSTILE[:300]}\n{ILLEGAL}[bold red]X[/]\nHF_TOKEN={SECRET}\n",
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_deepspeed_line_is_read_beside_hostile_text_and_a_huge_version_is_not() -> None:
    assert kinds_of(PASTES["deepspeed-beside-hostile"]) == ["deepspeed-ops-other-torch"]
    origin = snapshot_of(PASTES["deepspeed-huge-version"]).meta.origin
    kept = [
        m.text for m in (origin.messages if origin else None) or () if m.kind == "deepspeed-ops-other-torch"
    ]
    assert len(kept) == 1
    assert "Install torch version=2.3" in kept[0]
    assert len(kept[0]) < 1_000


def _variables(text: str) -> dict[str, str]:
    environment = snapshot_of(text).environment
    return dict(environment.variables or {}) if environment is not None else {}


def test_the_prompt_is_read_beside_hostile_text_and_a_huge_directory_is_no_prompt() -> None:
    assert _variables(PASTES["prompt-beside-hostile"]) == {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}
    assert "HSA_OVERRIDE_GFX_VERSION" not in _variables(PASTES["prompt-huge-dir"])


def test_a_huge_rocm_tuple_is_not_read_and_the_search_stays_linear() -> None:
    start = time.perf_counter()
    assert hip_of_app_log(f"ROCm version: ({'6' * 200_000}, 4)\n" + "ROCm version: (" * 20_000) is None
    assert time.perf_counter() - start < 2.0
    assert hip_of_app_log(f"{HOSTILE}\nROCm version: (6, 4)\n") == "6.4"


def test_an_illegal_address_beside_hostile_text_is_read() -> None:
    assert kinds_of(PASTES["illegal-address-hostile"]) == ["cuda-illegal-address"]
