"""Environment diagnostics. Imports are guarded so this runs on a bare install."""
import importlib
import os
import platform
import shutil
import sys
from pathlib import Path

PACKAGES = ("transformers", "peft", "accelerate", "datasets")


def _version(name):
    try:
        return getattr(importlib.import_module(name), "__version__", "?")
    except Exception:
        return None


def cache_dir():
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home)
    hub = os.environ.get("HUGGINGFACE_HUB_CACHE")
    return Path(hub) if hub else Path.home() / ".cache" / "huggingface"


def _free_disk():
    path = cache_dir()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def collect():
    """Rows of (label_key, level, detail, fix_key). level is ok, warn or fail."""
    rows = []
    version = platform.python_version()
    ok_python = sys.version_info >= (3, 10)
    rows.append(("doctor.python", "ok" if ok_python else "fail", f"{version} on {platform.system()}",
                 None if ok_python else "doctor.fix.package"))

    torch = None
    try:
        torch = importlib.import_module("torch")
    except Exception:
        pass
    if torch is None:
        rows.append(("doctor.torch", "fail", None, "doctor.fix.torch"))
        rows.append(("doctor.gpu", "fail", "doctor.no_gpu", "doctor.fix.cuda"))
    else:
        rows.append(("doctor.torch", "ok", torch.__version__, None))
        build = getattr(torch.version, "cuda", None)
        rows.append(("doctor.cuda_build", "ok" if build else "warn", build or "cpu-only",
                     None if build else "doctor.fix.cuda"))
        rows.extend(_gpu_rows(torch))

    bnb = _version("bitsandbytes")
    rows.append(("doctor.bnb", "ok" if bnb else "warn", bnb, None if bnb else "doctor.fix.bnb"))
    for name in PACKAGES:
        found = _version(name)
        rows.append((name, "ok" if found else "fail", found, None if found else "doctor.fix.package"))

    free = _free_disk()
    enough = free is None or free > 20 * 1024 ** 3
    rows.append(("doctor.disk", "ok" if enough else "warn", free, None if enough else "doctor.fix.disk"))
    return rows


def _gpu_rows(torch):
    rows = []
    try:
        available = torch.cuda.is_available()
    except Exception:
        available = False
    if not available:
        rows.append(("doctor.gpu", "warn", "doctor.no_gpu", "doctor.fix.cuda"))
        return rows
    count = torch.cuda.device_count()
    properties = torch.cuda.get_device_properties(torch.cuda.current_device())
    name = properties.name + (f"  ({count} visible)" if count > 1 else "")
    rows.append(("doctor.gpu", "warn" if count > 1 else "ok", name,
                 "doctor.fix.multigpu" if count > 1 else None))
    rows.append(("doctor.vram", "ok", properties.total_memory, None))
    try:
        bf16 = torch.cuda.is_bf16_supported()
    except Exception:
        bf16 = False
    rows.append(("doctor.bf16", "ok" if bf16 else "warn", "doctor.supported" if bf16 else "doctor.unsupported",
                 None if bf16 else "doctor.fix.bf16"))
    return rows


def readiness(rows):
    """One of ready, cpu_only, blocked."""
    levels = {key: level for key, level, _, _ in rows}
    if any(level == "fail" for level in levels.values()):
        return "blocked"
    gpu = levels.get("doctor.gpu")
    if gpu is None or gpu == "warn" and levels.get("doctor.vram") is None:
        return "cpu_only"
    return "ready"
