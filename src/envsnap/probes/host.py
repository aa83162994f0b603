"""The host probe: operating system, kernel, CPU, memory, and what the process runs inside.

Every file is read through ``ctx.path(...)`` so tests can point ``ctx.root`` at a recorded tree
(``tests/data/host/<scenario>/``). Only facts that stay put are reported: no uptime, load, job ids
or free memory, so two captures of an unchanged machine are identical.

Container detection follows what systemd-detect-virt and the runtimes themselves document:
Kubernetes first (its pods also run on docker/containerd, and the pod is the useful answer), then
podman's ``/run/.containerenv``, docker's ``/.dockerenv``, then the runtime names a cgroup path or
systemd's ``/run/systemd/container`` carries.
"""

from __future__ import annotations

import platform
import re
import sys

import psutil

from envsnap.probes.base import ProbeContext, read_text
from envsnap.snapshot.model import Host

_OS_RELEASE_FILES = ("/etc/os-release", "/usr/lib/os-release")
# platform.freedesktop_os_release()'s grammar: KEY=value, value optionally quoted, with
# backslash escapes of \ $ " ' and ` inside.
_OS_RELEASE_LINE = re.compile(r"^(?P<name>[a-zA-Z0-9_]+)=(?P<quote>[\"']?)(?P<value>.*)(?P=quote)$")
_OS_RELEASE_UNESCAPE = re.compile(r"\\([\\$\"'`])")
# Runtime names as they appear in /proc/1/cgroup paths, most specific first.
_CGROUP_RUNTIMES = (("kubepods", "kubernetes"), ("libpod", "podman"), ("docker", "docker"), ("lxc", "lxc"))
_CGROUP_CONTAINERD = ("containerd", "cri-containerd")
_SYSTEMD_CONTAINER_NAMES = {"docker": "docker", "podman": "podman", "lxc": "lxc", "lxc-libvirt": "lxc"}


def probe(ctx: ProbeContext) -> Host:
    """Describe the machine and operating system.

    Command line equivalent: ``cat /etc/os-release; uname -srm; lscpu; free -b``.
    """
    os_name, os_version, os_id = _operating_system(ctx)
    kernel_release = _kernel_release(ctx)
    return Host(
        status="ok",
        hostname=platform.node() or None,
        os_name=os_name,
        os_version=os_version,
        os_id=os_id,
        kernel=kernel_release,
        arch=platform.machine() or None,
        libc=_libc(),
        cpu_model=_cpu_model(ctx),
        cpu_physical_cores=psutil.cpu_count(logical=False),
        cpu_logical_cores=psutil.cpu_count(logical=True),
        memory_total_bytes=psutil.virtual_memory().total,
        container=_container(ctx),
        slurm="SLURM_JOB_ID" in ctx.environ,
        wsl=_is_wsl(ctx, kernel_release),
    )


def parse_os_release(text: str) -> dict[str, str]:
    """Parse os-release text the way ``platform.freedesktop_os_release()`` does."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        match = _OS_RELEASE_LINE.match(line)
        if match is not None:
            info[match.group("name")] = _OS_RELEASE_UNESCAPE.sub(r"\1", match.group("value"))
    return info


def _operating_system(ctx: ProbeContext) -> tuple[str | None, str | None, str | None]:
    """Name, version and id: os-release on Linux, the platform module elsewhere."""
    for name in _OS_RELEASE_FILES:
        text = read_text(ctx.path(name))
        if text is not None:
            info = parse_os_release(text)
            # VERSION_ID ("22.04") is what compatibility tables key on; rolling distros have none.
            version = info.get("VERSION_ID") or info.get("VERSION") or info.get("BUILD_ID")
            return info.get("NAME", "Linux"), version, info.get("ID", "linux")
    if sys.platform == "darwin":
        return "macOS", platform.mac_ver()[0] or None, "macos"
    if sys.platform == "win32":
        return "Windows", platform.version() or None, "windows"
    return platform.system() or None, None, None


def _kernel_release(ctx: ProbeContext) -> str | None:
    # /proc/sys/kernel/osrelease is what uname -r prints; reading it keeps fixture trees honest.
    text = read_text(ctx.path("/proc/sys/kernel/osrelease"))
    if text is not None and text.strip():
        return text.strip()
    return platform.release() or None


def _libc() -> str | None:
    name, version = platform.libc_ver()
    return f"{name} {version}" if name and version else None


def _cpu_model(ctx: ProbeContext) -> str | None:
    text = read_text(ctx.path("/proc/cpuinfo"))
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "model name" and value.strip():
            return value.strip()
    # ARM kernels often have no "model name"; uname -p (or the Windows/macOS name) is the fallback.
    return platform.processor() or None


def _container(ctx: ProbeContext) -> str | None:
    """The container runtime this process runs under, or None on a bare host or VM."""
    cgroup = read_text(ctx.path("/proc/1/cgroup")) or ""
    if "KUBERNETES_SERVICE_HOST" in ctx.environ or "kubepods" in cgroup:
        return "kubernetes"
    if ctx.path("/run/.containerenv").exists():
        return "podman"
    if ctx.path("/.dockerenv").exists():
        return "docker"
    for marker, runtime in _CGROUP_RUNTIMES:
        if marker in cgroup:
            return runtime
    if any(marker in cgroup for marker in _CGROUP_CONTAINERD):
        return "containerd"
    # systemd writes the manager's name here inside any container it knows about.
    declared = (read_text(ctx.path("/run/systemd/container")) or "").strip()
    return _SYSTEMD_CONTAINER_NAMES.get(declared, declared or None)


def _is_wsl(ctx: ProbeContext, kernel_release: str | None) -> bool:
    """WSL 1 kernels end in "-Microsoft", WSL 2 in "-microsoft-standard-WSL2"."""
    if "WSL_DISTRO_NAME" in ctx.environ:
        return True
    release = kernel_release or ""
    return "microsoft" in release.lower() or "WSL" in release
