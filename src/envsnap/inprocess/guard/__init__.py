"""``envsnap.guard``: catch a PyTorch model running ops off its device, op by op, module by module.

    with envsnap.guard(device="cuda") as g:
        model(x)
    print(g.report)            # "`encoder.layers.3.attn` ran 12 ops on cpu; `aten::_to_copy` moved …"

Also a decorator, ``@envsnap.guard(device="cuda")`` or bare ``@envsnap.guard``; the decorated
function's guard, and so its report, is its ``guard`` attribute (``train.guard.report``), and the
report accumulates over calls. ``python -m envsnap.guard script.py`` (envsnap/guard.py) wraps a
whole script. It reports ops on a device other than the expected one,
cross-device copies (count, bytes, direction), ops that raised NotImplementedError for the device
(recorded, then re-raised), and framework fallback warnings (MPS, XPU), counting the *ops* that
fall back rather than the warnings, which PyTorch prints once per process.

Cost: every ATen op becomes a Python call (a few µs each). ``every=N`` accounts only every Nth
forward of the outermost module and runs the others at full speed; benchmarks/bench_guard.py
measures both. ``strict=True`` raises OffDeviceError at the first off-device op run inside an
nn.Module forward instead (outside forwards, building a model or a batch on the CPU is normal and is
only collected).

torch is not an envsnap dependency: this module imports it only when a guard is entered.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar, overload

from envsnap.inprocess.guard.ledger import Ledger, ModKey, build_guard_report
from envsnap.inprocess.guard.report import GuardReport

F = TypeVar("F", bound=Callable[..., Any])

FALLBACK_WARNINGS = (
    # MPS, with PYTORCH_ENABLE_MPS_FALLBACK=1 (aten/src/ATen/mps/MPSFallback.mm)
    "will fall back to run on the CPU",
    "Aten Op fallback from XPU to CPU",  # XPU, on by default (torch-xpu-ops)
)
"""Texts of framework warnings that say ops are running on the CPU behind the device's back."""

_FALLBACK_RE = re.compile("|".join(re.escape(text) for text in FALLBACK_WARNINGS), re.IGNORECASE)
_ALWAYS_SHOW = [
    ("always", re.compile(f".*{re.escape(text)}", re.IGNORECASE), Warning, None, 0)
    for text in FALLBACK_WARNINGS
]
"""``warnings.filterwarnings("always", message=...)`` entries for the fallback warnings, built once."""


class OffDeviceError(RuntimeError):
    """Raised by a strict guard at the first op that runs off the expected device."""


def is_fallback_warning(message: str) -> bool:
    """Whether a warning's text says an op fell back to the CPU."""
    return _FALLBACK_RE.search(message) is not None


def resolve_device(device: str | None) -> tuple[str, str | None]:
    """The expected device type, and how it was chosen when not given.

    ``None`` picks the first accelerator torch can use (cuda, which is also ROCm; xpu; mps), else cpu.
    """
    import torch

    if device is not None:
        return torch.device(device).type, None
    for kind in ("cuda", "xpu", "mps"):
        backend = getattr(torch, kind, None)
        if backend is not None and getattr(backend, "is_available", lambda: False)():
            return kind, f"auto: torch.{kind} is available"
    return "cpu", "auto: torch sees no accelerator"


class Guard:
    """Accounts the ATen ops run inside it. Use ``envsnap.guard(...)`` to make one.

    A guard can be entered many times (as a decorator it is entered at each call); its report
    accumulates. Entering it while it is active (recursion) is a no-op.
    """

    def __init__(self, device: str | None = None, *, strict: bool = False, every: int = 1) -> None:
        if every < 1:
            raise ValueError(f"every must be 1 or more, not {every}")
        self._device = device
        self._strict = strict
        self._every = every
        self._depth = 0
        self._ledger: Ledger | None = None
        self._reason: str | None = None
        self._log: list[warnings.WarningMessage] = []
        self._warnings_context: warnings.catch_warnings[None] | None = None
        self._session: Any = None
        self._parts: tuple[Any, Any] | None = None
        """The dispatch mode and module stack, built at the first entry and reused after."""

    @property
    def report(self) -> GuardReport:
        """What the guard has seen so far (a fresh model on every access; secrets scrubbed)."""
        from envsnap.snapshot.scrub import scrub_report

        ledger = self._ledger or Ledger(expected=self._device or "unresolved")
        return scrub_report(
            build_guard_report(ledger, strict=self._strict, every=self._every, expected_reason=self._reason)
        )

    def __enter__(self) -> Guard:
        if self._depth:
            self._depth += 1
            return self
        if self._parts is None:
            # Built once per guard: a decorated training step enters it on every call, and
            # naming the model's modules (named_modules) each time cost more than the step's ops.
            from envsnap.inprocess.guard.mode import AccountingMode, ModuleStack

            if self._ledger is None:
                expected, self._reason = resolve_device(self._device)
                self._ledger = Ledger(expected=expected)
            built: Any = AccountingMode(
                self._ledger, self._log, is_fallback_warning, self._raise if self._strict else None
            )
            built.stack = ModuleStack(self._ledger, self._every, built)
            self._parts = (built, built.stack)
        mode, stack = self._parts
        self._start_recording_warnings()
        stack.install()
        if self._every == 1:
            mode.__enter__()
        self._session = (mode, stack)
        self._depth = 1
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._depth -= 1
        if self._depth:
            return
        mode, stack = self._session
        self._session = None
        if self._every == 1:
            mode.__exit__(exc_type, exc, tb)
        stack.remove()
        if self._warnings_context is not None:
            self._warnings_context.__exit__(exc_type, exc, tb)
            self._warnings_context = None

    def __call__(self, func: F) -> F:
        """Use the guard as a decorator: each call of ``func`` runs inside it.

        The wrapper's ``guard`` attribute is this guard: ``func.guard.report`` is the report of
        every call so far.
        """

        @functools.wraps(func)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        guarded.guard = self  # type: ignore[attr-defined]
        return guarded  # type: ignore[return-value]

    def _start_recording_warnings(self) -> None:
        """Record warnings while still showing them as usual; always let fallback warnings through.

        ``showwarning`` is wrapped rather than using ``catch_warnings(record=True)``, which would
        swallow every warning of the guarded code until the guard exits.
        """
        context = warnings.catch_warnings()
        context.__enter__()
        self._warnings_context = context
        mutated = getattr(warnings, "_filters_mutated", None)
        if mutated is None:  # a Python without the hook: the public (slower) way
            for text in FALLBACK_WARNINGS:
                warnings.filterwarnings("always", message=f".*{re.escape(text)}")
        else:
            # What filterwarnings does, with the filters compiled once: a decorated training step
            # enters the guard at every call, and two filterwarnings calls were ~20 µs of it.
            filters: Any = warnings.filters  # typeshed says Sequence; it is the module's list
            filters[:0] = _ALWAYS_SHOW
            mutated()
        shown = warnings.showwarning
        log = self._log

        def record_and_show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: Any = None,
            line: str | None = None,
        ) -> None:
            log.append(warnings.WarningMessage(message, category, filename, lineno, file, line))
            shown(message, category, filename, lineno, file, line)

        warnings.showwarning = record_and_show

    def _raise(self, op: str, device: str, module: ModKey) -> None:
        expected = self._ledger.expected if self._ledger else self._device
        where = f"in module `{module[0]}`" + (
            f" of {module[1]}" if module[1] and module[1] != module[0] else ""
        )
        raise OffDeviceError(
            f"envsnap.guard(strict=True): {op} ran on {device} {where}, expected {expected} "
            "(move that module or its inputs to the device, or drop strict=True to collect a report)"
        )


@overload
def guard(device: F, *, strict: bool = False, every: int = 1) -> F: ...


@overload
def guard(device: str | None = None, *, strict: bool = False, every: int = 1) -> Guard: ...


def guard(device: str | F | None = None, *, strict: bool = False, every: int = 1) -> Guard | F:
    """Count the ATen ops a PyTorch model runs, by device and nn.Module, to catch silent CPU fallback.

    Args:
        device: the device the work should run on ("cuda", "cuda:1", "xpu", "mps", "meta"); by
            default the first accelerator torch can use, else "cpu".
        strict: raise OffDeviceError at the first op that runs elsewhere inside an nn.Module
            forward (the message names the module) instead of collecting. Ops outside forwards
            (model construction, data loading) are still only collected.
        every: account only every Nth forward of the outermost module (sampling for long runs;
            ops outside forwards, including backward, are then not counted).

    Returns:
        A Guard: a context manager (``with envsnap.guard("cuda") as g``) and a decorator; its
        ``report`` is a GuardReport (``str(g.report)`` for a table, ``g.report.to_yaml()``).
        Given a function instead of a device (bare ``@envsnap.guard``), the guarded function,
        whose ``guard`` attribute holds the Guard.

    Example:
        >>> with envsnap.guard(device="cuda") as g:  # doctest: +SKIP
        ...     model(x)
        >>> print(g.report)  # doctest: +SKIP
        >>> @envsnap.guard(device="cuda")  # doctest: +SKIP
        ... def step(batch): ...
        >>> step(batch); print(step.guard.report)  # doctest: +SKIP
    """
    if callable(device):
        return Guard(None, strict=strict, every=every)(device)
    return Guard(device, strict=strict, every=every)
