"""AMD GPU target names (``gfx90a``, ``gfx942``, ``gfx1030``) from the forms the tools report them in.

The LLVM target is what ROCm's support matrix and a PyTorch wheel's arch list are keyed on, so it
has to come out exactly right whatever the source said:
- KFD topology gives an integer ``gfx_target_version`` = major·10000 + minor·100 + stepping
  (Linux ``amdkfd/kfd_device.c``: 90008 Arcturus/MI100, 90010 Aldebaran/MI200, 90402 MI300,
  100300 Navi21). The name prints minor and stepping as one hex digit each (HSA runtime), so
  90010 is ``gfx90a``, not ``gfx9010``.
- rocm-smi 6.x prints the three parts in decimal, giving ``gfx9010`` for gfx90a (a real quirk
  kept in the MI250 fixture); ``normalize_gfx_name`` undoes that.
- amdsmi already returns the LLVM name.
"""

from __future__ import annotations

import re

_GFX = re.compile(r"gfx([0-9a-fA-F]+)")


def gfx_from_kfd_version(value: int) -> str | None:
    """The LLVM target for a KFD ``gfx_target_version``; None for 0 (a CPU node) or nonsense.

    Args:
        value: e.g. 90010, 100300.

    Returns:
        E.g. ``gfx90a``, ``gfx1030``.
    """
    if value <= 0:
        return None
    major, rest = divmod(value, 10000)
    minor, stepping = divmod(rest, 100)
    if not (1 <= major <= 99 and minor <= 15 and stepping <= 15):
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def normalize_gfx_name(text: str | None) -> str | None:
    """An LLVM target name from amdsmi, rocm-smi or torch's ``gcnArchName``.

    Feature suffixes are dropped (``gfx90a:sramecc+:xnack-`` → ``gfx90a``). Purely decimal names
    too long to be LLVM's (rocm-smi's ``gfx9010``) are decoded as major, minor and stepping.

    Args:
        text: the name as reported.

    Returns:
        The LLVM target, or None when ``text`` has no gfx name.
    """
    if not text:
        return None
    match = _GFX.search(text.strip().lower())
    if match is None:
        return None
    digits = match.group(1)
    if not digits.isdigit():
        return f"gfx{digits}"  # has a hex letter: already LLVM's form (gfx90a, gfx90c)
    # gfx10xx-gfx12xx have a two-digit major; everything before is gfx8xx/gfx9xx.
    major_len = 2 if digits.startswith("1") else 1
    if len(digits) <= major_len + 2:
        return f"gfx{digits}"
    major, minor, stepping = int(digits[:major_len]), int(digits[major_len]), int(digits[major_len + 1 :])
    return gfx_from_kfd_version(major * 10000 + minor * 100 + stepping) or f"gfx{digits}"
