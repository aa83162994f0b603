"""The framework probe's cache: its children's answers, keyed on everything that can change them.

Importing torch takes seconds, and its build does not change between two commands: ``envsnap
show`` right after ``envsnap save`` should not pay for the import again. The answers (the raw
JSON each framework child printed, before interpretation) are stored under a key that changes
whenever a reinstall, an upgrade or a driver change could change them:

- the target interpreter (real path, size, mtime) and its ``sys.path``;
- every distribution on that path: the name, size and mtime of each ``*.dist-info/RECORD`` (pip
  rewrites it on every install; all of them, not only torch's, because frameworks load plugins
  and CUDA libraries from other wheels: ``nvidia-*``, ``jax-cuda12-plugin``, ``torch-xla``), plus
  ``*.egg-info`` folders and ``.pth`` files (editable and legacy installs);
- the environment variables a framework reads at import (``CUDA_VISIBLE_DEVICES``,
  ``LD_LIBRARY_PATH``, ``PYTORCH_*``, ...);
- the GPU driver (``/proc/driver/nvidia/version``, the AMD/Intel kernel modules' versions) and the
  device nodes present;
- the host and its devices: the machine id, the boot id (a reboot re-probes), the host name, and
  the set of PCI display and accelerator devices (vendor, device, slot): GPUs that fell off the bus
  change the key, so envsnap never reports the 8 GPUs a host had before.

The file is kept per host (its name holds a hash of the machine id and host name): on a cluster
with a shared home folder, ``fleet collect`` must not give every node the first node's view.

Anything the key misses (a torch built in place with ``setup.py develop`` and rebuilt) is what
``--no-cache`` is for. Failed answers (a timeout, a crash) are never stored: the next run tries
again. The file is ``$XDG_CACHE_HOME/envsnap/frameworks-v2-<host>.json``, envsnap's own, written
atomically; a missing, corrupt or foreign file counts as empty.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from envsnap.probes.base import ProbeContext, run_command
from envsnap.snapshot.child_python import code_argv

FILE_NAME = "frameworks-v2-{host}.json"
MAX_ENTRIES = 8
"""Keys kept (several interpreters, a driver upgrade); the oldest is dropped first."""

_ENV_RELEVANT = re.compile(
    r"^(?:LD_LIBRARY_PATH|LD_PRELOAD|PYTHONPATH|PYTHONHOME|CUDA_.*|.*_VISIBLE_DEVICES|NVIDIA_.*|"
    r"ROCM_.*|HIP_.*|HSA_.*|PYTORCH_.*|TORCH_.*|XLA_.*|JAX_.*|TF_.*|ORT_.*|ONEAPI_.*|ZE_.*|SYCL_.*)$"
)
"""Variables that change what a framework import reports (devices seen, libraries loaded)."""

_DRIVER_FILES = (
    "/proc/driver/nvidia/version",
    "/sys/module/amdgpu/version",
    "/sys/module/i915/version",
    "/sys/module/xe/version",
)
_DEVICE_NODE = re.compile(r"^(?:nvidia.*|kfd|accel\d*)$")

_PATH_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH")
"""Variables that change ``sys.path``: when the child's differ from ours, the child is asked."""
_QUERY = "import json, sys; print(json.dumps([sys.version, sys.prefix, sys.path]))"


class CacheFile(msgspec.Struct, kw_only=True):
    version: int = 1
    entries: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """key -> {job: answer}; insertion order is age (oldest first)."""


_HOST_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id", "/proc/sys/kernel/hostname")
"""Which machine this is (a container without a machine id still has a host name)."""
_BOOT_ID = "/proc/sys/kernel/random/boot_id"
_PCI_DEVICES = "/sys/bus/pci/devices"
_DEVICE_CLASSES = ("0x03", "0x12")
"""PCI classes of GPUs: display controllers (VGA, 3D: NVIDIA and AMD GPUs), processing accelerators."""


def default_path(environ: Mapping[str, str] | None = None, ctx: ProbeContext | None = None) -> Path:
    """Where this host's cache lives; XDG says a relative ``XDG_CACHE_HOME`` must be ignored."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "envsnap" / FILE_NAME.format(host=host_identity(ctx or ProbeContext())[:16])


def host_identity(ctx: ProbeContext) -> str:
    """A hash of the machine id and the host name (never the raw id: it is a stable identifier)."""
    digest = hashlib.sha256()
    for name in _HOST_FILES:
        digest.update(repr((name, _small_file(ctx, name))).encode())
    return digest.hexdigest()


def _small_file(ctx: ProbeContext, name: str) -> bytes | None:
    try:
        with ctx.path(name).open("rb") as handle:
            return handle.read(4096).strip()
    except OSError:
        return None


def _devices(ctx: ProbeContext) -> list[tuple[str, bytes | None, bytes | None, bytes]]:
    """(slot, vendor, device, class) of each GPU-class PCI device, sorted."""
    found: list[tuple[str, bytes | None, bytes | None, bytes]] = []
    folder = ctx.path(_PCI_DEVICES)
    try:
        slots = sorted(os.listdir(folder))
    except OSError:
        return found
    for slot in slots:
        kind = _small_file(ctx, f"{_PCI_DEVICES}/{slot}/class")
        if kind is not None and kind.startswith(tuple(c.encode() for c in _DEVICE_CLASSES)):
            vendor = _small_file(ctx, f"{_PCI_DEVICES}/{slot}/vendor")
            found.append((slot, vendor, _small_file(ctx, f"{_PCI_DEVICES}/{slot}/device"), kind))
    return found


def cache_key(ctx: ProbeContext, env: Mapping[str, str]) -> str | None:
    """The key for this interpreter, its installed distributions, environment and driver; None if unknown."""
    paths = _interpreter_paths(ctx, env)
    if paths is None:
        return None
    version, prefix, sys_path = paths
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        digest.update(repr(parts).encode("utf-8", "surrogateescape"))

    try:
        real = os.path.realpath(ctx.python)
        info = os.stat(real)
        add("python", ctx.python, real, info.st_size, info.st_mtime_ns, version, prefix)
    except OSError:
        return None
    for entry in sys_path:
        add("path", entry)
        for name, size, mtime in _distributions(entry):
            add("dist", name, size, mtime)
    for key in sorted(k for k in env if _ENV_RELEVANT.match(k)):
        add("env", key, env[key])
    for driver in _DRIVER_FILES:
        with contextlib.suppress(OSError):
            add("driver", driver, ctx.path(driver).read_bytes()[:4096])
    with contextlib.suppress(OSError):
        add("dev", sorted(n for n in os.listdir(ctx.path("/dev")) if _DEVICE_NODE.match(n)))
    add("host", host_identity(ctx), _small_file(ctx, _BOOT_ID))
    add("devices", _devices(ctx))
    return digest.hexdigest()


def _interpreter_paths(ctx: ProbeContext, env: Mapping[str, str]) -> tuple[str, str, list[str]] | None:
    """The target's version, prefix and ``sys.path``: our own directly, another by asking it (~20 ms)."""
    if ctx.is_own_interpreter and all(env.get(name) == os.environ.get(name) for name in _PATH_VARIABLES):
        return sys.version, sys.prefix, list(sys.path)
    done = run_command(code_argv(ctx.python, _QUERY), timeout_s=min(ctx.timeout_s, 10.0), env=dict(env))
    if done.returncode != 0:
        return None
    try:
        version, prefix, path = json.loads(done.stdout)
    except (ValueError, TypeError):
        return None
    if not isinstance(path, list):
        return None
    return str(version), str(prefix), [str(p) for p in path]


def _distributions(entry: str) -> list[tuple[str, int, int]]:
    """(name, size, mtime_ns) of each distribution's RECORD/PKG-INFO and each .pth file in a path entry."""
    found: list[tuple[str, int, int]] = []
    try:
        names = sorted(os.listdir(entry or "."))
    except OSError:
        return found
    for name in names:
        if name.endswith(".dist-info"):
            marker = os.path.join(entry, name, "RECORD")
        elif name.endswith(".egg-info"):
            marker = os.path.join(entry, name)
            marker = os.path.join(marker, "PKG-INFO") if os.path.isdir(marker) else marker
        elif name.endswith((".pth", ".egg-link")):
            marker = os.path.join(entry, name)
        else:
            continue
        try:
            info = os.stat(marker)
        except OSError:
            found.append((name, -1, -1))
            continue
        found.append((name, info.st_size, info.st_mtime_ns))
    return found


def load(key: str, path: Path | None = None) -> dict[str, Any] | None:
    """The cached answers for ``key``, or None."""
    entries = _read(path or default_path())
    answers = entries.get(key)
    return dict(answers) if isinstance(answers, dict) else None


def store(key: str, answers: Mapping[str, Any], jobs: Sequence[str], path: Path | None = None) -> None:
    """Remember complete answers (every job answered, none failed); errors writing are ignored."""
    if any(not isinstance(answers.get(job), dict) for job in jobs):
        return  # a timeout or a crash is not a build fact: probe again next time
    target = path or default_path()
    entries = _read(target)
    entries.pop(key, None)
    entries[key] = dict(answers)
    while len(entries) > MAX_ENTRIES:
        entries.pop(next(iter(entries)))
    data = msgspec.json.encode(CacheFile(entries=entries))
    temporary: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            dir=target.parent, prefix=f".{target.name}.", suffix=".partial", delete=False
        ) as handle:
            temporary = handle.name
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _read(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = msgspec.json.decode(path.read_bytes(), type=CacheFile)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}
    return dict(data.entries) if data.version == 1 else {}
