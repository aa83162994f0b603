"""The lines read since blind round 23 (candle's "Runtime compute cap N is not compatible with compile time
compute cap M", a ``VAR=value command`` after a shell prompt) sit beside free text: terminal escapes, Rich
markup, a huge field and a secret around them never reach the output as such, the lines are still read, and
what is kept is bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, kinds_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

CAP_LINE = (
    "Could not start backend: Runtime compute cap 70 is not compatible with compile time compute cap 80\n"
)
PROMPT_LINE = "root@0f962c3a9d38:/var/lib/jenkins# HSA_OVERRIDE_GFX_VERSION=9.0.0 python3\n"

PASTES = {
    "cap-beside-hostile": (
        f"{HOSTILE[:300]}\n{CAP_LINE}\x1b[31m[bold red]{HOSTILE[:200]}[/]\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "cap-huge-numbers": (
        f"Runtime compute cap {'7' * 100_000} is not compatible with compile time compute cap 80\n"
        f"HF_TOKEN={SECRET}\n{CAP_LINE}"
    ),
    "prompt-beside-hostile": f"{HOSTILE[:300]}\n{PROMPT_LINE}\x1b]0;PWNED\x07[link=file:///etc/passwd]x[/link]\nHF_TOKEN={SECRET}\n",
    "prompt-hostile-value": (
        "root@h:/w# HSA_OVERRIDE_GFX_VERSION=9.0.0\x1b[2J[bold red]X[/] python3\n"
        f"$ PYTORCH_ENABLE_MPS_FALLBACK={'1,' * 50_000} python3 x.py\n{CAP_LINE}HF_TOKEN={SECRET}\n"
    ),
    "prompt-huge-host": (
        f"{'a' * 100_000}@{'b' * 100_000}:/w# HSA_OVERRIDE_GFX_VERSION=9.0.0 python3\n"
        f"{CAP_LINE}HF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_cap_line_is_judged_beside_hostile_text() -> None:
    text = PASTES["cap-beside-hostile"]
    assert "compute-cap-not-compiled" in kinds_of(text)
    assert ("arch-not-in-build", "error") in findings_of(text)


def test_a_huge_number_is_not_matched_and_the_real_line_after_it_is() -> None:
    origin = snapshot_of(PASTES["cap-huge-numbers"]).meta.origin
    messages = (origin.messages if origin else None) or ()
    kept = [m.text for m in messages if m.kind == "compute-cap-not-compiled"]
    assert kept == ["Runtime compute cap 70 is not compatible with compile time compute cap 80"]


def _variables(text: str) -> dict[str, str]:
    environment = snapshot_of(text).environment
    return dict(environment.variables or {}) if environment is not None else {}


def test_the_prompt_assignment_is_read_beside_hostile_text() -> None:
    assert _variables(PASTES["prompt-beside-hostile"]) == {"HSA_OVERRIDE_GFX_VERSION": "9.0.0"}


def test_an_escape_in_the_value_ends_it_and_a_huge_value_is_not_read() -> None:
    variables = _variables(PASTES["prompt-hostile-value"])
    assert "PYTORCH_ENABLE_MPS_FALLBACK" not in variables  # longer than the 200 characters a value may have
    assert all("\x1b" not in value and SECRET not in value for value in variables.values())


def test_a_huge_host_name_is_not_a_prompt() -> None:
    assert _variables(PASTES["prompt-huge-host"]) == {}
