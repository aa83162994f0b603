"""Import the text of ``python -m torch.utils.collect_env``, as pasted in countless bug reports.

Every generation of the script is read (2019's ``Yes``/``No`` booleans through today's XPU and
allocator lines; docs/compat-rules.md A.2), along with what pasting does to it: indentation, Markdown
fences, Windows paths, lines wrapped by a chat window, ``Could not collect``, missing sections.

Two traps the importer avoids:
- "CUDA runtime version" is the system ``nvcc`` on PATH, not the framework's runtime: it maps to
  ``toolkits.cuda``, never to ``frameworks.torch.cuda``.
- "cuDNN version" is a file path (``ldconfig -p``), so the version is read from the file name.

Fields the report lacks stay absent; nothing is guessed. A report cut off before its final
"Versions of relevant libraries:" section is refused as truncated (``allow_partial`` imports it).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import msgspec

from envsnap.errors import BadInput
from envsnap.importers.base import ImportedSections
from envsnap.importers.package_lists import hip_of_app_log, torch_of_wheel
from envsnap.snapshot.model import (
    Accelerators,
    AmdDevice,
    AmdInfo,
    CudaToolkit,
    Environment,
    Frameworks,
    Host,
    IntelDevice,
    IntelInfo,
    LibraryInstall,
    MigInstance,
    NvidiaDevice,
    NvidiaInfo,
    Package,
    PythonEnv,
    Toolkits,
    TorchAvailability,
    TorchInfo,
)

# Labels of every generation, longest first so "CUDA used to build PyTorch" wins over shorter ones.
LABELS = (
    "PyTorch version",
    "Is debug build",
    "CUDA used to build PyTorch",
    "ROCM used to build PyTorch",
    "OS",
    "GCC version",
    "Clang version",
    "CMake version",
    "Libc version",
    "Python version",
    "Python platform",
    "Is CUDA available",
    "CUDA runtime version",
    "CUDA_MODULE_LOADING set to",
    "GPU models and configuration",
    "Nvidia driver version",
    "cuDNN version",
    "Is XPU available",
    "XPU used to build PyTorch",
    "Intel GPU driver version",
    "Intel GPU models onboard",
    "Intel GPU models detected",
    # IPEX's own collect_env (intel-extension-for-pytorch scripts/collect_env.py): its labels end the
    # GPU block
    "PyTorch CXX11 ABI",
    "IPEX version",
    "IPEX commit",
    "Build type",
    "IGC version",
    "DPCPP runtime version",
    "MKL version",
    "Intel OpenCL ICD version",
    "Level Zero version",
    "HIP runtime version",
    "MIOpen runtime version",
    "Is XNNPACK available",
    "Caching allocator config",
    "CPU",
    "Versions of relevant libraries",
    # vLLM's collect_env adds these after the torch ones (both its layouts).
    "ROCM Version",
    "Neuron SDK Version",
    "vLLM Version",
    "vLLM Build Flags",
    "GPU Topology",
    "Environment Variables",
)
_BLOCK_LABELS = frozenset(
    {
        "GPU models and configuration",
        "cuDNN version",
        "CPU",
        "Versions of relevant libraries",
        "Intel GPU driver version",
        "Intel GPU models onboard",
        "Intel GPU models detected",
        "vLLM Build Flags",
        "GPU Topology",
        "Environment Variables",
    }
)
_CANONICAL = {label.lower(): label for label in LABELS}
# Hand-edited pastes: any capitalisation, spaces before the colon (vLLM aligns its colons), a
# full-width colon, or none at all when a value follows (never for one-word labels like "CPU",
# which would swallow lscpu's "CPU family:").
_LABEL_RE = re.compile(
    r"^(?P<label>" + "|".join(re.escape(label) for label in LABELS) + r")"
    r"(?:\s*[:：][ \t]?(?P<value>.*)|[ \t]+(?P<bare>[^:：\s].*))?$",
    re.IGNORECASE,
)
_BANNER = re.compile(r"^={5,}$")
_OTHER_SECTION = re.compile(r"^(?:[|+]|Traceback \(|File \"|\w+(?:Error|Warning|Exception):|#|\$ )")
_MISSING = frozenset({"", "Could not collect", "N/A", "None", "No CUDA", "NoGCNArchNameOnOldPyTorch"})
_TRUE = frozenset({"True", "Yes"})
_FALSE = frozenset({"False", "No"})
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADER = "Collecting environment information..."
_HEADER_GLUED = re.compile(r"Collecting environment information\.\.\.[ \t]+(?=\S)")


@dataclass
class _Report:
    values: dict[str, str] = field(default_factory=dict)
    blocks: dict[str, list[str]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)


def _clean_lines(text: str) -> list[str]:
    lines = []
    text = _HEADER_GLUED.sub(_HEADER + "\n", text)  # a paste that lost the newline after the header
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if _FENCE.match(raw):
            continue
        lines.append(raw.strip())
    return lines


def _label(line: str) -> tuple[str, str] | None:
    """The canonical label and value of a ``Label: value`` line, or None."""
    match = _LABEL_RE.match(line)
    if match is None:
        return None
    label = _CANONICAL[match.group("label").lower()]
    value, bare = match.group("value"), match.group("bare")
    if value is None and bare is None:
        # A bare label: only vLLM's banner titles ("Versions of relevant libraries") stand alone.
        return (label, "") if label in _BLOCK_LABELS else None
    if bare is not None and " " not in label:
        return None
    return label, (value if value is not None else bare).strip()


def _unbanner(lines: list[str]) -> list[str]:
    """vLLM's newer layout: drop ``=====`` banners; a banner title that is a label becomes one."""
    out: list[str] = []
    for position, line in enumerate(lines):
        if _BANNER.match(line):
            continue
        framed = 0 < position < len(lines) - 1 and _BANNER.match(lines[position - 1])
        if framed and _BANNER.match(lines[position + 1]):
            if line.lower() == "versions of relevant libraries":
                out.append("Versions of relevant libraries:")
            elif line.lower() == "cpu info":
                out.append("CPU:")
            elif line.lower() == "environment variables":
                out.append("Environment Variables:")
            continue
        out.append(line)
    return out


def _split(text: str) -> _Report:
    report = _Report()
    current: str | None = None
    wrapped: dict[str, list[str]] = {}
    for line in _unbanner(_clean_lines(text)):
        if line == _HEADER:
            continue
        labelled = _label(line)
        if labelled:
            current, value = labelled
            report.order.append(current)
            report.values[current] = value
            wrapped.pop(current, None)
            report.blocks[current] = [value] if value else []
            continue
        if current is None or not line:
            if current in _BLOCK_LABELS and not line and report.blocks.get(current):
                # A blank line ends a multi-line GPU list; other blocks may contain blanks.
                current = None if current == "GPU models and configuration" else current
            elif current not in _BLOCK_LABELS:
                current = None  # a blank line ends a one-line value: what follows is not wrapped from it
            continue
        if current in _BLOCK_LABELS:
            report.blocks[current].append(line)
        elif _OTHER_SECTION.match(line):
            current = None  # an nvidia-smi table or a traceback right after a cut-off report
        else:
            # A single-line value wrapped by the paste: glue the continuation back on (joined once at
            # the end: re-concatenating per line was quadratic in a long wrap).
            wrapped.setdefault(current, [report.values[current]]).append(line)
    for label, parts in wrapped.items():
        report.values[label] = " ".join(parts).strip()
    return report


def _value(report: _Report, label: str) -> str | None:
    value = report.values.get(label)
    return None if value is None or value in _MISSING else value


def _bool(report: _Report, label: str) -> bool | None:
    value = _value(report, label)
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def parse(text: str, name: str = "<collect_env>", *, allow_partial: bool = False) -> ImportedSections:
    """Turn a collect_env report into snapshot sections.

    Raises:
        BadInput: not a collect_env report, or cut off before its last section.
    """
    sections, missing = parse_with_gaps(text, name)
    if missing and not allow_partial:
        raise BadInput(
            f"{name}: the report looks truncated: it lacks the "
            f"{', '.join(repr(m + ':') for m in missing)} section(s) "
            "(paste all of it, or use --allow-partial)"
        )
    return sections


EXPECTED = ("GPU models and configuration", "CPU", "Versions of relevant libraries")
"""Sections every generation prints; a paste without them was cut off (or trimmed by hand)."""


def parse_with_gaps(text: str, name: str = "<collect_env>") -> tuple[ImportedSections, tuple[str, ...]]:
    """The sections a collect_env report holds, and the expected ones it lacks (a cut-off paste).

    Raises:
        BadInput: not a collect_env report.
    """
    report = _split(text)
    if "PyTorch version" not in report.values and len(set(report.order)) < MIN_LABELS_WITHOUT_HEAD:
        raise BadInput(f"{name}: not a collect_env report (no 'PyTorch version:' line)")
    missing: tuple[str, ...] = ()
    if "PyTorch version" not in report.values:
        missing = ("PyTorch version",)  # the paste starts in the middle of the report
    if "Versions of relevant libraries" not in report.values:
        missing += tuple(label for label in EXPECTED if label not in report.values)
    return _sections(report, name, text), missing


MIN_LABELS_WITHOUT_HEAD = 4
"""A paste that starts mid-report (no "PyTorch version:") is still one when it has this many labels."""


def label_count(text: str) -> int:
    """How many distinct collect_env labels ``text`` holds (detection of a report missing its head)."""
    return len(labels(text))


COMMON_LABELS = frozenset({"PyTorch version", "Python version", "OS", "CPU", "Python platform"})
"""Labels that app logs and templates print too ("pytorch version: ...", "Python version: ...")."""


def labels(text: str) -> set[str]:
    """The distinct collect_env labels ``text`` holds."""
    return set(_split(text).order)


def _sections(report: _Report, name: str, text: str = "") -> ImportedSections:
    return ImportedSections(
        host=_host(report),
        python=_python(report),
        packages=_packages(report, name),
        environment=_environment(report),
        accelerators=_accelerators(report),
        toolkits=_toolkits(report),
        frameworks=_frameworks(report, text),
    )


_OS_ARCH = re.compile(r"^(?P<os>.+?)\s*\((?P<arch>x86_64|aarch64|arm64|AMD64|ppc64le|s390x)\)$")
_LINUX_PLATFORM = re.compile(r"^Linux-(?P<kernel>\d[^-]*(?:-[^-]+)*?)-(?:x86_64|aarch64|ppc64le|s390x)-with")


def _host(report: _Report) -> Host | None:
    fields: dict[str, object] = {}
    os_value = _value(report, "OS")
    if os_value:
        match = _OS_ARCH.match(os_value)
        fields["os_name"] = match.group("os") if match else os_value
        if match:
            fields["arch"] = match.group("arch")
    libc = _value(report, "Libc version")
    if libc:
        fields["libc"] = libc
    platform = _value(report, "Python platform")
    if platform:
        match = _LINUX_PLATFORM.match(platform)
        if match:
            fields["kernel"] = match.group("kernel")
    fields.update(_cpu(report.blocks.get("CPU", [])))
    return Host(status="ok", **fields) if fields else None  # type: ignore[arg-type]


def _cpu(lines: list[str]) -> dict[str, object]:
    info: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition(":")
        if sep:
            info.setdefault(key.strip(), value.strip())
    fields: dict[str, object] = {}
    model = info.get("Model name") or info.get("Name")  # lscpu on Linux, Win32_Processor on Windows
    if model:
        fields["cpu_model"] = model
    if info.get("CPU(s)", "").isdigit():
        fields["cpu_logical_cores"] = int(info["CPU(s)"])
    cores, sockets = info.get("Core(s) per socket", ""), info.get("Socket(s)", "")
    if cores.isdigit() and sockets.isdigit():
        fields["cpu_physical_cores"] = int(cores) * int(sockets)
    if "Architecture" in info and "arch" not in fields:
        fields["arch"] = info["Architecture"]
    return fields


def _python(report: _Report) -> PythonEnv | None:
    value = _value(report, "Python version")
    if not value:
        return None
    version = value.split()[0]
    return PythonEnv(status="ok", version=version) if re.match(r"^\d+\.\d+", version) else None


_PIP_LINE = re.compile(r"^\[pip\d?\]\s+(?P<req>\S.*)$")
_CONDA_LINE = re.compile(
    r"^\[conda\]\s+(?P<name>\S+)\s+(?P<version>\S+)(?:\s+(?P<build>\S+))?(?:\s+(?P<channel>\S+))?$"
)


def _packages(report: _Report, name: str) -> tuple[Package, ...] | None:
    lines = report.blocks.get("Versions of relevant libraries")
    if lines is None:
        return None
    packages: dict[str, Package] = {}
    for line in lines:
        if "Could not collect" in line or "No relevant packages" in line:
            continue
        pip = _PIP_LINE.match(line)
        if pip:
            requirement = pip.group("req")
            pkg_name, sep, version = requirement.partition("==")
            if sep and pkg_name and version and " " not in version:
                packages.setdefault(
                    pkg_name.lower(), Package(name=pkg_name, version=version, installer="pip")
                )
            continue
        conda = _CONDA_LINE.match(line)
        if conda:
            pkg = conda.group("name")
            packages.setdefault(
                pkg.lower(), Package(name=pkg, version=conda.group("version"), installer="conda")
            )
    vllm = _value(report, "vLLM Version")
    if vllm and "vllm" not in packages and re.match(r"^\d", vllm):
        packages["vllm"] = Package(name="vllm", version=vllm.split()[0])  # vLLM's own report prints it apart
    return tuple(packages.values())


_ENV_LINE = re.compile(r"^(?P<key>[A-Z_][A-Z0-9_]*)=(?P<value>.*)$")


def _environment(report: _Report) -> Environment | None:
    variables: dict[str, str] = {}
    for line in report.blocks.get("Environment Variables", []):
        match = _ENV_LINE.match(line)  # vLLM prints the relevant variables as KEY=value
        if match:
            variables.setdefault(match.group("key"), match.group("value"))
    variables.update(_allocator(report))
    return Environment(status="ok", variables=variables) if variables else None


def _allocator(report: _Report) -> dict[str, str]:
    value = _value(report, "Caching allocator config")
    if not value or not value.startswith("{") or len(value) > 10_000:
        return {}
    try:
        parsed = ast.literal_eval(value)  # collect_env prints a dict repr of the *_ALLOC_CONF variables
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(k): str(v) for k, v in parsed.items() if isinstance(k, str) and isinstance(v, (str, int))}


_GPU_LINE = re.compile(
    r"^(?:GPU (?P<index>\d+):\s*)?(?P<name>.+?)(?:\s*\((?P<gfx>gfx[0-9a-f]+)(?::[^)]*)?\))?$"
)


_AMD_NAME = re.compile(r"\b(?:AMD|Radeon|Instinct)\b", re.IGNORECASE)
_NVIDIA_NAME = re.compile(r"\b(?:NVIDIA|GeForce|Tesla|Quadro|TITAN|RTX|GTX)\b", re.IGNORECASE)
_MIG_LINE = re.compile(r"^MIG\s+(?P<profile>\S+)\s+Device\s+\d+\b", re.IGNORECASE)
# IPEX's collect_env (intel-extension-for-pytorch scripts/collect_env.py) lists each torch.xpu device as
# the repr of its properties: "[0] _DeviceProperties(name='Intel(R) Arc(TM) A770 Graphics',
# platform_name='Intel(R) Level-Zero', dev_type='gpu, ...)". These are Intel GPUs behind oneAPI, never
# NVIDIA ones.
_XPU_PROPERTIES = re.compile(
    r"^\[(?P<index>\d{1,3})\]\s*_(?:Xpu|XPU)?DeviceProperties\(name='(?P<name>[^']{1,200})'"
)
_INTEL_NAME = re.compile(r"\bIntel\b|Level-Zero", re.IGNORECASE)


def _accelerators(report: _Report) -> Accelerators | None:
    gpu_lines = [
        line for line in report.blocks.get("GPU models and configuration", []) if line not in _MISSING
    ]
    driver = _value(report, "Nvidia driver version")
    if driver and not re.match(r"^\d{3}", driver):
        driver = None  # macOS prints its CUDA driver as "1.1.0": not an NVIDIA driver release to compare
    hip_built = _value(report, "ROCM used to build PyTorch")
    nvidia_devices: list[NvidiaDevice] = []
    amd_devices: list[AmdDevice] = []
    intel_devices: list[IntelDevice] = []
    for position, line in enumerate(gpu_lines):
        xpu = _XPU_PROPERTIES.match(line)
        if xpu is not None or (_INTEL_NAME.search(line) and not _NVIDIA_NAME.search(line)):
            name = xpu.group("name") if xpu is not None else line.split(":", 1)[-1].strip()
            index = int(xpu.group("index")) if xpu is not None else position
            intel_devices.append(IntelDevice(index=index, name=name))
            continue
        mig = _MIG_LINE.match(line)
        if mig:
            # "MIG 1g.10gb Device 0:" is a slice of the GPU above it, not another GPU.
            if nvidia_devices:
                parent = nvidia_devices[-1]
                slices = (*(parent.mig_instances or ()), MigInstance(profile=mig.group("profile")))
                nvidia_devices[-1] = msgspec.structs.replace(parent, mig_enabled=True, mig_instances=slices)
            continue
        match = _GPU_LINE.match(line)
        if match is None:
            continue
        index = int(match.group("index")) if match.group("index") else position
        gpu_name = match.group("name").strip()
        if (
            match.group("gfx")
            or _AMD_NAME.search(gpu_name)
            or (hip_built and not _NVIDIA_NAME.search(gpu_name))
        ):
            amd_devices.append(AmdDevice(index=index, name=gpu_name, gfx_target=match.group("gfx")))
        else:
            nvidia_devices.append(NvidiaDevice(index=index, name=gpu_name))
    nvidia = None
    if driver or nvidia_devices:
        nvidia = NvidiaInfo(
            status="ok", source="import", driver_version=driver, devices=tuple(nvidia_devices) or None
        )
    amd = (
        AmdInfo(status="ok", source="import", devices=tuple(amd_devices))
        if amd_devices or (hip_built and gpu_lines)
        else None
    )
    intel = IntelInfo(status="ok", devices=tuple(intel_devices)) if intel_devices else None
    if nvidia is None and amd is None and intel is None:
        return None
    return Accelerators(nvidia=nvidia, amd=amd, intel=intel)


_NVCC = re.compile(r"^(?P<version>\d+\.\d+(?:\.\d+)?)")
_CUDNN_FILE = re.compile(
    r"libcudnn(?:_[a-z_]+)?\.so\.(?P<version>\d+(?:\.\d+){0,2})|cudnn\w*64_(?P<win>\d+)\.dll", re.I
)


def _toolkits(report: _Report) -> Toolkits | None:
    cuda = None
    nvcc = _value(report, "CUDA runtime version")
    match = _NVCC.match(nvcc or "")
    if match:
        version = match.group("version")
        cuda = CudaToolkit(status="ok", nvcc_version=version, version=".".join(version.split(".")[:2]))
    cudnn = None
    paths = [line for line in report.blocks.get("cuDNN version", []) if line not in _MISSING]
    paths = [p for p in paths if p != "Probably one of the following:"]
    versions = [(m.group("version") or m.group("win"), p) for p in paths if (m := _CUDNN_FILE.search(p))]
    if versions:
        version, path = max(versions, key=lambda vp: [int(x) for x in vp[0].split(".")])
        cudnn = LibraryInstall(status="ok", version=version, path=path)
    if cuda is None and cudnn is None:
        return None
    return Toolkits(cuda=cuda, cudnn=cudnn)


_BUILD_VERSION = re.compile(r"\d{1,2}\.\d{1,2}(?:\.\d{1,4})?(?![\w.])")


def _build_version(value: str | None) -> str | None:
    """The CUDA version a build line states ("12.1", older reports "9.0.176"), or None: a chat window's next
    line joined onto "Could not collect" (a wrapped value) states no version."""
    match = _BUILD_VERSION.match(value) if value else None
    return match.group(0) if match else None


_BUILD_LABELS = frozenset({"CUDA used to build PyTorch", "ROCM used to build PyTorch", "HIP runtime version"})


def _frameworks(report: _Report, text: str = "") -> Frameworks | None:
    version = _value(report, "PyTorch version")
    if "PyTorch version" not in report.values:
        return None  # cut off above the first line: unknown, not "not installed"
    if version is None:
        return Frameworks(
            torch=TorchInfo(status="skipped", reason="collect_env reports PyTorch as not installed")
        )
    available = TorchAvailability(
        cuda=_bool(report, "Is CUDA available"), xpu=_bool(report, "Is XPU available")
    )
    hip = _value(report, "ROCM used to build PyTorch") or _value(report, "HIP runtime version")
    cuda = _build_version(_value(report, "CUDA used to build PyTorch"))
    # a version has no blank: an app log's "pytorch version: X" can run on into the next line
    version = version.split()[0]
    if cuda is None and hip is None:
        # no build lines (an app log printing only the version): the wheel's tag states the build
        tagged = torch_of_wheel(version)
        cuda, hip = (tagged.cuda, tagged.hip) if tagged is not None else (None, None)
        if tagged is None and not _BUILD_LABELS & report.values.keys():
            # an untagged source build ("2.8.0a0+gitfc14c65") in an app log: its ROCm line states the build
            hip = hip_of_app_log(text)
    return Frameworks(
        torch=TorchInfo(
            status="ok",
            version=version,
            debug=_bool(report, "Is debug build"),
            cuda=cuda,
            hip=hip,
            xpu=_value(report, "XPU used to build PyTorch"),
            miopen=_value(report, "MIOpen runtime version"),
            available=available if available != TorchAvailability() else None,
        )
    )
