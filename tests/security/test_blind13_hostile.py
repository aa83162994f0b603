"""The torch lines read since blind round 13 (a build tag written apart, "PyTorch 2.8.0 + cu129"; a build
said mid-sentence, "... shows PyTorch Version: 2.7.1+cu126") sit beside free text: terminal escapes, Rich
markup, a huge field and a secret around them never reach the output as such, and the version is still
read, with nothing of the hostile text in it. The same for a printed Python dict of package versions
(SD.Next's "System packages: {'torch': '2.4.1+cpu', ...}"), a reader added in that round."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "build-tag-apart": (
        f"**Setup:** i7-8750H, GTX 1070, {HOSTILE[:400]}\n"
        "**Versions:** PyTorch 2.8.0 + cu129\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "build-mid-sentence": (
        f"@someone {HOSTILE[:300]} Your system information shows PyTorch Version: 2.7.1+cu126\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "printed-dict": (
        f"INFO     System packages: {{'torch': '2.4.1+cpu', 'diffusers': '{HOSTILE[:500]}', "
        f"'{HOSTILE[:200]}': '1.0'}}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "tag-is-hostile": (
        "Versions: PyTorch 2.8.0 + cu129\x1b]0;PWNED\x07\n"
        f"Your system information shows PyTorch Version: 2.7.1+cu126[bold red]X[/]\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("build-tag-apart", "2.8.0+cu129"),
        ("build-mid-sentence", "2.7.1+cu126"),
        ("printed-dict", "2.4.1+cpu"),
    ],
)
def test_the_version_is_read_beside_hostile_text(name: str, version: str) -> None:
    frameworks = snapshot_of(PASTES[name]).frameworks
    assert frameworks is not None
    assert frameworks.torch is not None
    assert frameworks.torch.version == version


def test_a_tag_glued_to_hostile_text_is_not_taken_with_it() -> None:
    frameworks = snapshot_of(PASTES["tag-is-hostile"]).frameworks
    version = frameworks.torch.version if frameworks is not None and frameworks.torch is not None else None
    assert version is None or ("\x1b" not in version and "[" not in version and len(version) <= 40)
