"""Shell completion as the shells ask for it: click's protocol, in a subprocess, as bash/zsh/fish do.

The completion script a shell ``eval``s calls ``envsnap`` again with ``_ENVSNAP_COMPLETE`` set and
the words typed so far; these tests make exactly those calls and read the answers.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from envsnap.compare.impact import LAYERS
from envsnap.rules import RULE_IDS

ENVSNAP = [sys.executable, "-m", "envsnap"]


def _complete(shell: str, words: str, cword: int | None = None) -> list[str]:
    """What ``envsnap`` answers when ``shell`` asks to complete ``words`` (bash's or zsh/fish's protocol)."""
    env = dict(os.environ, _ENVSNAP_COMPLETE=f"{shell}_complete", COMP_WORDS=words)
    if shell == "fish":  # fish passes the word being completed itself, not its index
        env["COMP_CWORD"] = "" if words.endswith(" ") else words.split()[-1]
    else:
        env["COMP_CWORD"] = str(cword if cword is not None else len(words.split()) - 1)
    done = subprocess.run(ENVSNAP, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.splitlines()


def test_commands_complete() -> None:
    assert _complete("bash", "envsnap s") == ["plain,save", "plain,serve", "plain,show"]
    assert _complete("bash", "envsnap ", cword=1) == [
        f"plain,{name}"
        for name in sorted(
            [
                *("audit", "check", "diff", "export", "fleet", "gpus", "import", "report", "rollback"),
                *("run", "save", "serve", "show", "tui", "verify", "watch"),
            ]
        )
    ]


@pytest.mark.parametrize(
    "words",
    [
        "envsnap show snap",
        "envsnap check snap",
        "envsnap diff a.yaml snap",
        "envsnap rollback snap",
        "envsnap tui snap",
        "envsnap import collect-env snap",
        "envsnap check --against snap",
        "envsnap report snap",
        "envsnap report -o snap",
    ],
)
def test_snapshot_arguments_hand_over_to_file_completion(words: str) -> None:
    assert _complete("bash", words) == ["file,snap"]


def test_layers_complete_for_only() -> None:
    assert _complete("bash", "envsnap diff a.yaml b.yaml --only pa") == ["plain,packages"]
    assert _complete("bash", "envsnap diff a.yaml b.yaml --only ", cword=5) == [f"plain,{x}" for x in LAYERS]


def test_rule_ids_complete_for_ignore() -> None:
    answer = _complete("bash", "envsnap check --ignore cpu-")
    assert answer == [f"plain,{rule}" for rule in sorted(RULE_IDS) if rule.startswith("cpu-")]
    assert "plain,cpu-only-build-on-gpu-host" in answer


def test_zsh_and_fish_get_answers_in_their_formats() -> None:
    # zsh: type, value and help on three lines per item; fish: "type,value" per line.
    zsh = _complete("zsh", "envsnap diff a.yaml b.yaml --only pack")
    assert zsh[:2] == ["plain", "packages"]
    assert _complete("fish", "envsnap diff a.yaml b.yaml --only pack") == ["plain,packages"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_setup_line_prints_a_script(shell: str) -> None:
    env = dict(os.environ, _ENVSNAP_COMPLETE=f"{shell}_source")
    done = subprocess.run(ENVSNAP, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "_ENVSNAP_COMPLETE" in done.stdout
    assert f"{shell}_complete" in done.stdout
