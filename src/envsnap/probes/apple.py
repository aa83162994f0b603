"""The Apple probe: ``accelerators.mps``, the chip and macOS version behind Metal Performance Shaders.

The chip comes from ``sysctl -n machdep.cpu.brand_string`` ("Apple M1 Pro"), the macOS version from
``platform.mac_ver()``. Whether MPS is usable is torch's answer (``torch.backends.mps``), which the
frameworks probe records; this probe does not import torch, so ``available`` stays unknown here.
The platform functions are parameters so tests can play a Mac on Linux.
"""

from __future__ import annotations

import platform
from collections.abc import Callable

from envsnap.probes.base import CommandResult, ProbeContext, run_command
from envsnap.snapshot.model import MpsInfo

MacVer = Callable[[], tuple[str, tuple[str, str, str], str]]
Runner = Callable[..., CommandResult]


def probe(
    ctx: ProbeContext,
    *,
    system: Callable[[], str] = platform.system,
    mac_ver: MacVer = platform.mac_ver,
    run: Runner = run_command,
) -> MpsInfo:
    """The Apple GPU side of the host.

    Command line equivalent: ``sysctl -n machdep.cpu.brand_string; sw_vers -productVersion``.

    Args:
        ctx: what to probe (for the subprocess timeout and environment).
        system: ``platform.system``; "Darwin" on macOS.
        mac_ver: ``platform.mac_ver``.
        run: ``run_command``.

    Returns:
        ok with chip and macOS version on macOS; skipped elsewhere.
    """
    name = system()
    if name != "Darwin":
        return MpsInfo(status="skipped", reason=f"not macOS ({name or 'unknown OS'})")
    done = run(["sysctl", "-n", "machdep.cpu.brand_string"], timeout_s=min(ctx.timeout_s, 5.0))
    chip = done.stdout.strip() if done.returncode == 0 else ""
    release = mac_ver()[0]
    return MpsInfo(status="ok", chip=chip or None, macos_version=release or None)
