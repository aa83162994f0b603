"""How much a difference matters: the layer of each snapshot path and the impact of each change.

Pure data and small functions, kept apart from diff.py so the table below can be read (and
argued about) on its own. Versions are compared with ``packaging.version``; a version that is not
PEP 440 is compared as a string and its change counted as notable, since its size is unknown.

Impact table (``breaking`` > ``notable`` > ``minor``; anything not listed is minor):

=========================================  ==================================================
path (schema form)                         impact
=========================================  ==================================================
a probed section (``accelerators.nvidia``) ok -> skipped/failed/absent: breaking for
                                           accelerators and frameworks, notable elsewhere;
                                           becoming ok or appearing: notable
frameworks.*.cuda / hip / xpu              any change (12.1 -> 12.4, CUDA -> CPU): breaking
frameworks.torch.version, jax, jaxlib,     major or minor release, or local tag (+cu121 ->
tensorflow, onnxruntime versions           +cu124): breaking; patch: minor
frameworks.torch.arch_list                 an architecture dropped: breaking; only added: notable
frameworks.torch.available.*               true -> false: breaking; otherwise notable
frameworks.torch.cudnn / nccl / miopen     major: breaking; otherwise notable
frameworks.torch.loaded_libraries          notable
accelerators.*.driver_version,             downgrade or removal: breaking; upgrade: notable
nvidia.cuda_driver_version,
nvidia.kernel_module_version
nvidia.library_version_mismatch            becomes true: breaking
device added / removed                     added: notable; removed: breaking
device model changed (paired by position)  compute capability / gfx target differs: breaking;
                                           same: notable
device compute_capability, gfx_target,     breaking
mig_enabled, status
device memory_total_bytes                  smaller: notable; larger: minor
device compute_mode, ecc_enabled,          notable
mig_instances, device_id, driver
toolkits.*.version, nvcc_version,          major: breaking; minor: notable; patch: minor
amd.rocm_version
toolkits.cudnn / nccl                      major: breaking; otherwise notable
package version                            local tag changed: breaking; torch, jax, jaxlib,
                                           tensorflow major/minor: breaking; nvidia-*/cuda-*
                                           wheels major: breaking, minor: notable; any other
                                           major (or 0.x minor): notable; minor/patch: minor
package added / removed                    notable (a framework package removed: breaking)
package source, installer                  notable (requires, top_level: minor)
python.version                             major or minor: breaking; patch: minor
python.implementation                      breaking (env_kind, shadowed copies: notable)
environment.variables                      *_VISIBLE_DEVICES, *LIBRARY_PATH, LD_PRELOAD,
                                           PYTHONPATH/HOME, CUDA/ROCm homes, device order and
                                           gfx overrides: notable; any other variable: minor
host.arch                                  breaking (os, libc, kernel, container, wsl: notable)
package details known on one side only     not a change (an import lacks what a probe records)
package version "" (unknown) on one side   not a change (an imported ``name @ url`` line)
package requires / top_level               only when the version is unchanged (a new release
                                           brings new metadata; that is the version change)
host.memory_total_bytes                    minor, and only past a 2% difference (firmware
                                           reserves slightly different amounts)
extensions.distributions                   added/removed, vendors, libraries, sm_archs: notable
telemetry.*                                minor (compared only with --include-telemetry)
=========================================  ==================================================

Host identity (hostname, serials, UUIDs) is not compared at all, like the fingerprint: the
host labels head every report anyway, and two identical stacks should diff as identical.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Literal

from packaging.version import Version

Impact = Literal["breaking", "notable", "minor"]
Kind = Literal["added", "removed", "changed"]

LAYERS = (
    "host",
    "driver",
    "runtime",
    "framework",
    "devices",
    "packages",
    "extensions",
    "environment",
    "telemetry",
)
"""Every layer, in report order (telemetry only appears with --include-telemetry)."""

IMPACTS: tuple[Impact, ...] = ("breaking", "notable", "minor")
IMPACT_RANK: dict[str, int] = {name: rank for rank, name in enumerate(IMPACTS)}

FRAMEWORK_PACKAGES = frozenset({"torch", "jax", "jaxlib", "tensorflow", "tensorflow-cpu", "tensorflow-gpu"})
"""Distributions whose every minor release can change behaviour or ABI for extensions built on them."""

_ACCELERATOR_WHEEL = re.compile(r"^(nvidia-|cuda-|cupy-cuda|pytorch-triton|triton$)")
_DEVICE_LISTS = ("accelerators.nvidia.devices", "accelerators.amd.devices", "accelerators.intel.devices")
_SENSITIVE_VARIABLE = re.compile(
    r"(_VISIBLE_DEVICES|LIBRARY_PATH|^LD_PRELOAD|^PYTHONPATH|^PYTHONHOME|^CUDA_HOME|^CUDA_PATH|^ROCM_PATH"
    r"|^ROCM_HOME|^HIP_PATH|^CUDA_DEVICE_ORDER|^HSA_OVERRIDE_GFX_VERSION|^ZE_AFFINITY_MASK|^ONEAPI_DEVICE_SELECTOR)$"
)

Rule = Callable[[Kind, Any, Any], Impact]

DETAILS_SOMETIMES_UNKNOWN = frozenset(
    {"packages.installer", "packages.requires", "packages.top_level", "packages.source"}
)
"""Package details that only some origins record (a probe does, a ``pip freeze`` import does not):
known on one side and unknown on the other is not a change; two different known values are."""

FOLLOWS_THE_VERSION = frozenset({"packages.requires", "packages.top_level", "extensions.distributions.files"})
"""Details that change with every release: reported only when the version itself did not change."""

MEMORY_NOISE_FRACTION = 0.02
"""Host memory sizes closer than this are the same machine type (firmware reserves vary)."""


# ---------------------------------------------------------------------------- layers


def layer_of(schema: str) -> str:
    """The layer a path belongs to, from its schema form (``accelerators.nvidia.devices.name``)."""
    top, _, rest = schema.partition(".")
    if top in ("host", "packages", "extensions", "telemetry"):
        return top
    if top in ("python", "environment"):
        return "environment"
    if top == "toolkits":
        return "runtime"
    if top == "frameworks":
        return "framework"
    # accelerators.<vendor>[.field...]
    vendor, _, field = rest.partition(".")
    if vendor == "mps" or field.startswith("devices"):
        return "devices"
    if field == "rocm_version":
        return "runtime"
    return "driver"


# ---------------------------------------------------------------------------- versions


def parse_version(value: Any) -> Version | None:
    """A PEP 440 version, or None when the text is not one."""
    return _parse_version_text(str(value))


@functools.lru_cache(maxsize=65_536)
def _parse_version_text(text: str) -> Version | None:
    # Cached: a big diff judges hundreds of thousands of changes over far fewer distinct versions,
    # and parsing was most of a 150k-package diff. Version objects are never mutated.
    try:
        return Version(text)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return None


def _release(version: Version, index: int) -> int:
    return version.release[index] if len(version.release) > index else 0


def version_delta(old: Any, new: Any) -> str:
    """How two versions differ: epoch, major, minor, local (tag), patch, other or unknown (not PEP 440)."""
    return _delta(parse_version(old), parse_version(new))


def _delta(a: Version | None, b: Version | None) -> str:
    if a is None or b is None:
        return "unknown"
    if a.epoch != b.epoch:
        return "epoch"
    if _release(a, 0) != _release(b, 0):
        return "major"
    if _release(a, 1) != _release(b, 1):
        return "minor"
    if a.local != b.local:
        return "local"
    if a.release != b.release:
        return "patch"
    return "other"  # pre/post/dev releases, or equal versions written differently


def is_downgrade(old: Any, new: Any) -> bool:
    """Whether ``new`` is older than ``old`` (strings compared as text when not PEP 440)."""
    a, b = parse_version(old), parse_version(new)
    if a is None or b is None:
        return str(new) < str(old)
    return b < a


# ---------------------------------------------------------------------------- rules


def _const(impact: Impact) -> Rule:
    return lambda kind, old, new: impact


def _driver(kind: Kind, old: Any, new: Any) -> Impact:
    if kind == "removed" or (kind == "changed" and is_downgrade(old, new)):
        return "breaking"
    return "notable"


def _toolkit(kind: Kind, old: Any, new: Any) -> Impact:
    if kind != "changed":
        return "notable"
    delta = version_delta(old, new)
    if delta in ("epoch", "major"):
        return "breaking"
    return "notable" if delta in ("minor", "unknown") else "minor"


def _major_breaking(kind: Kind, old: Any, new: Any) -> Impact:
    if kind == "changed" and version_delta(old, new) in ("epoch", "major"):
        return "breaking"
    return "notable"


def _framework_version(kind: Kind, old: Any, new: Any) -> Impact:
    if kind != "changed":
        return "breaking" if kind == "removed" else "notable"
    delta = version_delta(old, new)
    return "minor" if delta in ("patch", "other") else "breaking"


def package_impact(name: str, kind: Kind, old: Any, new: Any) -> Impact:
    """Impact of a package version change, addition or removal (``name`` PEP 503-normalized)."""
    framework = name in FRAMEWORK_PACKAGES
    if kind == "added":
        return "notable"
    if kind == "removed":
        return "breaking" if framework else "notable"
    a, b = parse_version(old), parse_version(new)
    delta = _delta(a, b)
    if delta in ("local", "epoch", "unknown"):
        return "breaking" if delta == "local" else "notable"
    if a is not None and b is not None and a.local != b.local:
        return "breaking"  # +cu121 -> +cu124 together with a release change: a different build
    if framework:
        return "breaking" if delta in ("major", "minor") else "minor"
    if _ACCELERATOR_WHEEL.match(name):
        return {"major": "breaking", "minor": "notable"}.get(delta, "minor")  # type: ignore[return-value]
    if delta == "minor" and a is not None and _release(a, 0) == 0:
        return "notable"  # 0.x: by semver convention a minor release may break the API
    return "notable" if delta == "major" else "minor"


def _arch_list(kind: Kind, old: Any, new: Any) -> Impact:
    if kind == "changed" and set(old or ()) - set(new or ()):
        return "breaking"
    return "breaking" if kind == "removed" else "notable"


def _dropped_is_breaking(kind: Kind, old: Any, new: Any) -> Impact:
    """For lists such as onnxruntime providers: losing an entry breaks, gaining one is notable."""
    return _arch_list(kind, old, new)


def _true_to_false(kind: Kind, old: Any, new: Any) -> Impact:
    return "breaking" if old is True and new is not True else "notable"


def _false_to_true(kind: Kind, old: Any, new: Any) -> Impact:
    return "breaking" if new is True and old is not True else "notable"


def _python_version(kind: Kind, old: Any, new: Any) -> Impact:
    if kind != "changed":
        return "notable"
    return "breaking" if version_delta(old, new) in ("epoch", "major", "minor", "unknown") else "minor"


def _memory(kind: Kind, old: Any, new: Any) -> Impact:
    if kind == "changed" and isinstance(old, int) and isinstance(new, int) and new < old:
        return "notable"
    return "minor"


def _device_status(kind: Kind, old: Any, new: Any) -> Impact:
    return "breaking" if new not in ("ok", None) else "notable"


# Keyed by schema path (list keys removed). Device fields are added for every vendor below.
_RULES: dict[str, Rule] = {
    "accelerators.nvidia.driver_version": _driver,
    "accelerators.nvidia.cuda_driver_version": _driver,
    "accelerators.nvidia.kernel_module_version": _driver,
    "accelerators.nvidia.library_version_mismatch": _false_to_true,
    "accelerators.amd.driver_version": _driver,
    "accelerators.amd.rocm_version": _toolkit,
    "accelerators.mps.available": _true_to_false,
    "accelerators.mps.chip": _const("notable"),
    "accelerators.mps.macos_version": _const("notable"),
    "accelerators.nvidia.devices.mig_instances": _const("notable"),
    "toolkits.cuda.version": _toolkit,
    "toolkits.cuda.nvcc_version": _toolkit,
    "toolkits.rocm.version": _toolkit,
    "toolkits.hip.version": _toolkit,
    "toolkits.cudnn.version": _major_breaking,
    "toolkits.nccl.version": _major_breaking,
    "frameworks.torch.version": _framework_version,
    "frameworks.jax.version": _framework_version,
    "frameworks.jax.jaxlib_version": _framework_version,
    "frameworks.tensorflow.version": _framework_version,
    "frameworks.onnxruntime.version": _framework_version,
    "frameworks.torch.cuda": _const("breaking"),
    "frameworks.torch.hip": _const("breaking"),
    "frameworks.torch.xpu": _const("breaking"),
    "frameworks.torch.cudnn": _major_breaking,
    "frameworks.torch.nccl": _major_breaking,
    "frameworks.torch.miopen": _major_breaking,
    "frameworks.torch.arch_list": _arch_list,
    "frameworks.torch.available.cuda": _true_to_false,
    "frameworks.torch.available.xpu": _true_to_false,
    "frameworks.torch.available.mps": _true_to_false,
    "frameworks.torch.devices": lambda kind, old, new: "breaking" if kind == "removed" else "notable",
    "frameworks.torch.devices.capability": _const("breaking"),
    "frameworks.torch.devices.gcn_arch": _const("breaking"),
    "frameworks.torch.loaded_libraries": _const("notable"),
    "frameworks.torch.loaded_libraries.origin": _const("notable"),
    "frameworks.jax.backend": _const("breaking"),
    "frameworks.jax.devices": _const("notable"),
    "frameworks.jax.plugins": _const("notable"),
    "frameworks.tensorflow.gpus": _dropped_is_breaking,
    "frameworks.onnxruntime.providers": _dropped_is_breaking,
    "frameworks.onnxruntime.distribution": _const("notable"),
    "frameworks.onnxruntime.device": _const("notable"),
    "frameworks.companions.cuda": _const("breaking"),
    "frameworks.companions.hip": _const("breaking"),
    "packages.source": _const("notable"),
    "packages.installer": _const("notable"),
    "python.version": _python_version,
    "python.implementation": _const("breaking"),
    "python.env_kind": _const("notable"),
    "python.shadowed": _const("notable"),
    "host.arch": _const("breaking"),
    "host.os_id": _const("notable"),
    "host.os_name": _const("notable"),
    "host.os_version": _const("notable"),
    "host.kernel": _const("notable"),
    "host.libc": _const("notable"),
    "host.container": _const("notable"),
    "host.wsl": _const("notable"),
    "extensions.distributions": _const("notable"),
    "extensions.distributions.vendors": _const("notable"),
    "extensions.distributions.libraries": _const("notable"),
    "extensions.distributions.sm_archs": _const("notable"),
}
for _devices in _DEVICE_LISTS:
    _RULES[_devices] = lambda kind, old, new: "breaking" if kind == "removed" else "notable"
    _RULES[f"{_devices}.compute_capability"] = _const("breaking")
    _RULES[f"{_devices}.gfx_target"] = _const("breaking")
    _RULES[f"{_devices}.mig_enabled"] = _const("breaking")
    _RULES[f"{_devices}.status"] = _device_status
    _RULES[f"{_devices}.memory_total_bytes"] = _memory
    for _field in ("compute_mode", "ecc_enabled", "device_id", "driver"):
        _RULES[f"{_devices}.{_field}"] = _const("notable")

# The node value of a framework's section is its status; of companions/packages, their version.
_SECTION_BREAKS = ("accelerators.", "frameworks.")


def section_impact(schema: str, kind: Kind, old: Any, new: Any) -> Impact:
    """A section's status changed, appeared or vanished (``old``/``new`` are ``ok`` or ``skipped: why``)."""
    was_ok = kind != "added" and old == "ok"
    is_ok = kind != "removed" and new == "ok"
    if was_ok and not is_ok:
        return "breaking" if schema.startswith(_SECTION_BREAKS) else "notable"
    if is_ok and not was_ok:
        return "notable"
    return "minor"


def impact_of(schema: str, path: str, kind: Kind, old: Any, new: Any) -> Impact:
    """The impact of one change; ``schema`` is the path without list keys."""
    if schema == "packages" or schema == "frameworks.companions":
        name = path[path.rindex("[") + 1 : -1].partition("#")[0]
        return package_impact(name, kind, old, new)
    if schema == "environment.variables":
        name = path[path.rindex("[") + 1 : -1] if path.endswith("]") else path.rsplit(".", 1)[-1]
        return "notable" if _SENSITIVE_VARIABLE.search(name) else "minor"
    if schema.startswith("telemetry"):
        return "minor"
    rule = _RULES.get(schema)
    return "minor" if rule is None else rule(kind, old, new)


def is_noise(schema: str, old: Any, new: Any) -> bool:
    """Whether a difference is measurement noise rather than a change (host memory within 2%)."""
    if schema == "host.memory_total_bytes" and isinstance(old, int) and isinstance(new, int):
        return abs(old - new) <= MEMORY_NOISE_FRACTION * max(old, new)
    return False


_VERSION_NODES = frozenset(
    {"packages", "frameworks.companions", "python.shadowed", "extensions.distributions"}
)


def is_unknown_value(schema: str, value: Any) -> bool:
    """Whether a value stands for "not reported": an empty package version (``name @ url`` imports)."""
    return value == "" and schema in _VERSION_NODES


def worst(impacts: Any) -> Impact | None:
    """The most severe impact among ``impacts`` (None when empty)."""
    ranked = sorted(impacts, key=lambda impact: IMPACT_RANK[impact])
    return ranked[0] if ranked else None
