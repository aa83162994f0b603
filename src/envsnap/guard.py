"""``python -m envsnap.guard [OPTIONS] script.py [ARGS...]``: run a whole script under envsnap.guard.

The script runs as ``__main__`` (runpy, like ``python script.py``); when it ends, however it ends,
the guard's table is printed on stderr (and the YAML report written with ``--report``). The exit
status is the script's. What can be checked before the script runs is checked first, and a
problem there is one line on stderr, exit 2, and no report: a script or module that doesn't
exist, a ``--device`` torch doesn't know (or no torch at all), a ``--report`` path where no file
can be created (tried by creating one). A report that still can't be written at the end is an
error on stderr and leaves the script's exit status as it is.

Why this module is callable: ``envsnap.guard`` is also the public function
``envsnap.guard(device=...)``, which ``envsnap/__init__.py`` serves lazily from
``envsnap.inprocess.guard``. ``-m envsnap.guard`` needs a module of that name, and importing a submodule
binds it as an attribute of its package, which would shadow the function for everyone after an
``import envsnap.guard``. So this module's class is swapped for a callable module type that
forwards calls to the function (the pattern the ``types.ModuleType`` docs allow): whichever object
``envsnap.guard`` is, ``envsnap.guard(device="cuda")`` works. Under ``python -m`` runpy executes this
file as ``__main__`` without importing ``envsnap.guard``, so the attribute stays the function there.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envsnap.errors import BadInput, ExitCode
from envsnap.inprocess.guard import Guard, OffDeviceError, guard, resolve_device
from envsnap.inprocess.guard.report import GuardReport

__all__ = ["Guard", "GuardReport", "OffDeviceError", "guard", "main"]


class _CallableModule(types.ModuleType):
    """``envsnap.guard`` as a module that can still be called like the function it shadows."""

    def __call__(self, device: Any = None, *, strict: bool = False, every: int = 1) -> Any:
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


def _check_target(module: str | None, target: list[str]) -> None:
    """Refuse a script or module that doesn't exist, as ``python`` would, but before the guard starts.

    Raises:
        BadInput: no such script (or folder/zip without ``__main__``), or no such module.
    """
    if module is None:
        script = Path(target[0])
        runnable = script / "__main__.py" if script.is_dir() else script
        try:
            runnable.open("rb").close()
        except OSError as err:
            raise BadInput(f"{target[0]}: cannot open: {err.strerror or err}") from None
        return
    # find_spec imports the parent packages, as `python -m` does before it runs anything.
    try:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(f"{module}.__main__")
    except (ImportError, ValueError) as err:
        raise BadInput(f"-m {module}: {err}") from None
    if spec is None:
        raise BadInput(f"-m {module}: no module named {module!r} (or it has no __main__)")


def _check_device(device: str | None) -> None:
    """Refuse a device string torch doesn't parse, or a missing torch.

    Raises:
        BadInput: torch can't be imported, or doesn't know the device.
    """
    try:
        resolve_device(device)
    except ImportError as err:
        raise BadInput(f"PyTorch can't be imported in this interpreter ({err}); the guard needs it") from None
    except (RuntimeError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise BadInput(f"--device {device}: not a device torch knows ({first})") from None


def _preflight(args: argparse.Namespace) -> None:
    """Everything that can be checked before the script runs (BadInput: one line, exit 2)."""
    from envsnap.live.output_path import check_writable

    _check_target(args.module, args.target)
    if args.report:
        check_writable(Path(args.report))
    _check_device(args.device)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m envsnap.guard``; returns the script's exit status (2: bad usage)."""
    args = _parser().parse_args(argv)
    if args.module is None and not args.target:
        _parser().error("give a script to run (or -m MODULE)")
    if args.every < 1:
        _parser().error("--every must be 1 or more")
    try:
        _preflight(args)
    except BadInput as err:
        print(f"envsnap: error: {err}", file=sys.stderr)
        return int(ExitCode.BAD_INPUT)
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
    from envsnap.snapshot.files import write_atomic

    try:
        write_atomic(Path(path), report.to_yaml())
    except BadInput as err:
        print(f"envsnap: error: report not written: {err}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
else:
    sys.modules[__name__].__class__ = _CallableModule
