"""Why a host has no accelerator to fall back from, in the probes' own words.

"no-accelerator" is only useful with its reason: no driver, a driver without a device, a CUDA
toolkit mistaken for a driver. The vendor probes already say exactly that, so ``envsnap run``
asks them (in a background thread started with the workload, so a slow ``nvidia-smi`` fallback
costs nothing) and quotes them when the verdict is ``no-accelerator``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from envsnap.probes.base import ProbeContext

Explain = Callable[[], tuple[str, ...]]


def why_no_accelerator(ctx: ProbeContext | None = None) -> tuple[str, ...]:
    """One line per vendor probe, plus the system CUDA/ROCm toolkit when one is installed."""
    from envsnap.probes import intel
    from envsnap.probes.amd import probe as amd
    from envsnap.probes.nvidia import probe as nvidia
    from envsnap.probes.toolkits import probe as toolkits

    ctx = ctx or ProbeContext(frameworks=False)
    lines: list[str] = []
    vendors: tuple[tuple[str, Callable[[], object]], ...] = (
        ("NVIDIA", lambda: nvidia.probe(ctx).info),
        ("AMD", lambda: amd.probe(ctx).info),
        ("Intel", lambda: intel.probe(ctx)),
    )
    for label, read in vendors:
        try:
            section = read()
        except Exception as err:  # a probe bug must not cost the run its report
            lines.append(f"{label}: probe failed: {type(err).__name__}: {err}")
            continue
        status, reason = getattr(section, "status", None), getattr(section, "reason", None)
        if status == "ok":
            count = len(getattr(section, "devices", None) or ())
            devices = f"{count} device{'' if count == 1 else 's'}"
            lines.append(f"{label}: driver answers, {devices}, but no telemetry backend opened")
        else:
            lines.append(f"{label}: {reason or status}")
    try:
        found = toolkits.probe(ctx)
    except Exception:  # the vendor lines above are what matters
        return tuple(lines)
    if found.cuda is not None and found.cuda.ok and found.cuda.path:
        lines.append(
            f"CUDA toolkit {found.cuda.version or '?'} is installed at {found.cuda.path}, "
            "but a toolkit is not a driver: it builds CUDA code, it can't run it"
        )
    if found.rocm is not None and found.rocm.ok and found.rocm.path:
        lines.append(
            f"ROCm {found.rocm.version or '?'} is installed at {found.rocm.path}, but no AMD GPU answers"
        )
    return tuple(lines)


class BackgroundExplanation:
    """Runs an explanation in a daemon thread; ``result()`` waits for it at most ``timeout_s``."""

    def __init__(self, explain: Explain) -> None:
        self._lines: tuple[str, ...] = ()
        self._thread = threading.Thread(target=self._run, args=(explain,), name="envsnap-why", daemon=True)
        self._thread.start()

    def _run(self, explain: Explain) -> None:
        from envsnap.live.monitor import lower_priority

        lower_priority()  # probing (nvcc, nvidia-smi) must not take CPU from the workload
        try:
            self._lines = explain()
        except Exception as err:  # never let the explanation break the report
            self._lines = (f"could not tell why: {type(err).__name__}: {err}",)

    def result(self, timeout_s: float = 5.0) -> tuple[str, ...]:
        """The lines, or a note that probing took too long."""
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            return (f"probing the accelerators took over {timeout_s:g} s; run `envsnap show` to see why",)
        return self._lines
