"""A stand-in for the target's pip in rollback --apply tests: records commands, edits a package list.

The real pip run (a real venv, real wheels) is in tests/rollback/test_apply_venv.py; this fake
lets the unit tests check the order and arguments of the commands, and what happens when one fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from envsnap.rollback.apply import LineSink
from envsnap.snapshot.model import Package, PackageSource


class FakePip:
    """Records pip commands and applies them to an in-memory package list.

    Args:
        installed: the target environment's distributions before the restore.
        fail: every command fails (``install``), or only ``install`` commands (``"install"``).
    """

    def __init__(self, installed: tuple[Package, ...], fail: bool | str = False) -> None:
        self.installed = {canonicalize_name(p.name): p for p in installed}
        self.commands: list[list[str]] = []
        self.fail = fail

    def _fails(self, argv: Sequence[str]) -> bool:
        return self.fail is True or (self.fail == "install" and "install" in argv)

    def run(self, argv: Sequence[str], on_line: LineSink) -> int:
        self.commands.append(list(argv))
        args = list(argv[argv.index("--") + 1 :])
        if "uninstall" in argv:
            for name in args:
                self.installed.pop(canonicalize_name(name), None)
                on_line(f"  Successfully uninstalled {name}")
        elif not self._fails(argv):
            for line in args:
                requirement = Requirement(line)
                pins = [spec.version for spec in requirement.specifier if spec.operator == "=="]
                source = (
                    PackageSource(kind="index")
                    if requirement.url is None
                    else PackageSource(kind="url", url=requirement.url)
                )
                self.installed[canonicalize_name(requirement.name)] = Package(
                    name=requirement.name, version=pins[0] if pins else "", installer="pip", source=source
                )
        return 1 if self._fails(argv) else 0

    def read(self, python: str) -> tuple[Package, ...]:
        return tuple(self.installed.values())


def fake_interpreter(folder: Path) -> str:
    """An executable file standing in for the target interpreter (pip itself is faked)."""
    path = folder / "bin" / "python"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return str(path)
