"""``envsnap --version`` is answered before click (or anything heavy) is imported."""

from __future__ import annotations

import subprocess
import sys


def test_version_without_importing_click() -> None:
    code = (
        "import sys; sys.argv = ['envsnap', '--version']\n"
        "from envsnap.launch import main\n"
        "main()\n"
        "heavy = sorted(m for m in ('click', 'msgspec', 'yaml', 'envsnap.cli') if m in sys.modules)\n"
        "print('loaded:', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["envsnap, version 0.1.0", "loaded: []"]


def test_other_arguments_go_to_the_click_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "--no-such-option"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2  # click's usage error
    assert "--no-such-option" in done.stderr
    done = subprocess.run([sys.executable, "-m", "envsnap", "-V"], capture_output=True, text=True, check=True)
    assert done.stdout == "envsnap, version 0.1.0\n"
