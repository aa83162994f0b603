"""``python -m envsnap.guard [OPTIONS] script.py [ARGS...]``: run a whole script under envsnap.guard.

The script runs as ``__main__`` (runpy, like ``python script.py``); when it ends, however it ends,
the guard's table is printed on stderr (and the YAML report written with ``--report``). The exit
status is the script's.

Why this module is callable: ``envsnap.guard`` is also the public function
``envsnap.guard(device=...)``, which ``envsnap/__init__.py`` serves lazily from
``envsnap.live.guard``. ``-m envsnap.guard`` needs a module of that name, and importing a submodule
binds it as an attribute of its package, which would shadow the function for everyone after an
``import envsnap.guard``. So this module's class is swapped for a callable module type that
forwards calls to the function (the pattern the ``types.ModuleType`` docs allow): whichever object
``envsnap.guard`` is, ``envsnap.guard(device="cuda")`` works. Under ``python -m`` runpy executes this
file as ``__main__`` without importing ``envsnap.guard``, so the attribute stays the function there.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import types
from collections.abc import Sequence

from envsnap.live.guard import Guard, OffDeviceError, guard
from envsnap.live.guard_report import GuardReport

__all__ = ["Guard", "GuardReport", "OffDeviceError", "guard", "main"]


class _CallableModule(types.ModuleType):
    """``envsnap.guard`` as a module that can still be called like the function it shadows."""

    def __call__(self, device: str | None = None, *, strict: bool = False, every: int = 1) -> Guard:
        return guard(device, strict=strict, every=every)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m envsnap.guard",
        description="Run a Python script (or -m module) under envsnap.guard and print which ops ran off "
        "the expected device, in which nn.Module, and what was copied between devices.",
        epilog="Example: python -m envsnap.guard --device cuda --report guard.yaml train.py --epochs 1",
    )
    parser.add_argument("--device", help="expected device (cuda, xpu, mps, meta, ...); default: the first "
                        "accelerator torch can use, else cpu")  # fmt: skip
    parser.add_argument("--strict", action="store_true", help="stop at the first off-device op")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="account only every Nth outermost forward (less overhead)")  # fmt: skip
    parser.add_argument("--report", metavar="PATH", help="also write the report as YAML to PATH")
    parser.add_argument("-m", dest="module", metavar="MODULE", help="run a module instead of a script")
    parser.add_argument("target", nargs=argparse.REMAINDER, help="script.py [ARGS...] (or the module's ARGS)")
    return parser


def _run(module: str | None, target: list[str]) -> int:
    """Run the script or module as ``__main__``; its exit status."""
    try:
        if module is not None:
            sys.argv = [module, *target]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(target)
            # As for `python script.py`: the script's folder comes first on sys.path.
            sys.path.insert(0, os.path.dirname(os.path.abspath(target[0])))
            runpy.run_path(target[0], run_name="__main__")
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m envsnap.guard``; returns the script's exit status."""
    args = _parser().parse_args(argv)
    if args.module is None and not args.target:
        _parser().error("give a script to run (or -m MODULE)")
    if args.every < 1:
        _parser().error("--every must be 1 or more")
    wrapped = guard(args.device, strict=args.strict, every=args.every)
    code = 1
    try:
        with wrapped:
            code = _run(args.module, args.target)
    except BaseException as err:
        import traceback

        traceback.print_exc()  # the script's own error, as Python would print it
        code = 130 if isinstance(err, KeyboardInterrupt) else 1
    finally:
        report = wrapped.report
        print(f"\n{report.table()}", file=sys.stderr)
        if args.report:
            _save(report, args.report)
    return code


def _save(report: GuardReport, path: str) -> None:
    from pathlib import Path

    from envsnap.errors import BadInput
    from envsnap.store import write_atomic

    try:
        write_atomic(Path(path), report.to_yaml())
    except BadInput as err:
        print(f"envsnap: error: {err}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
else:
    sys.modules[__name__].__class__ = _CallableModule
