"""pip freeze output becomes the package layer; anything that isn't a pinned requirement is refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

from envsnap.errors import BadInput
from envsnap.importers import pip_freeze

FREEZE = """\
# a comment pip writes with --all
--index-url https://download.pytorch.org/whl/cu121
filelock==3.13.1
torch==2.4.1+cu121
-e git+https://github.com/acme/tools.git@0123456789abcdef0123456789abcdef01234567#egg=acme_tools
private-lib @ git+https://github.com/acme/private-lib.git@89abcdef0123456789abcdef0123456789abcdef
wheelhouse-pkg @ file:///opt/wheels/wheelhouse_pkg-1.0-py3-none-any.whl
nvidia-cudnn-cu12==9.1.0.70  # pinned by torch
"""


def test_pins_urls_and_editables() -> None:
    packages = {p.name: p for p in pip_freeze.parse(FREEZE).packages or ()}
    assert packages["torch"].version == "2.4.1+cu121"
    assert packages["nvidia-cudnn-cu12"].version == "9.1.0.70"
    tools = packages["acme_tools"]
    assert tools.source
    assert tools.source.kind == "editable"
    assert tools.source.vcs == "git"
    assert tools.source.commit_id == "0123456789abcdef0123456789abcdef01234567"
    private = packages["private-lib"]
    assert private.source
    assert (private.source.kind, private.source.vcs) == ("vcs", "git")
    assert private.version == ""  # pip freeze doesn't say; left empty, not invented
    wheel = packages["wheelhouse-pkg"]
    assert wheel.source
    assert wheel.source.kind == "file"
    assert "filelock" in packages
    assert len(packages) == 6


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("torch>=2.0", "not pinned to one version"),
        ("torch==2.*", "not pinned to one version"),
        ("this is not a requirement!", ":1: not a requirement"),
        ("-e ./local-dir", None),  # an option-like line with no package: skipped, then nothing left
    ],
)
def test_bad_lines_are_refused_with_their_number(line: str, expected: str | None) -> None:
    with pytest.raises(BadInput, match=expected or "no packages found"):
        pip_freeze.parse(line + "\n", "freeze.txt")


def test_matches_real_pip_freeze_of_this_environment() -> None:
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all"], capture_output=True, text=True, check=True
    ).stdout
    parsed = {p.name.lower().replace("_", "-"): p.version for p in pip_freeze.parse(frozen).packages or ()}
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True
    ).stdout
    for line in listed.splitlines():
        name, _, version = line.partition("==")
        key = name.lower().replace("_", "-")
        if key == "envsnap":
            continue  # installed editable: pip freeze writes it as a path, without a version
        assert parsed[key] == version
