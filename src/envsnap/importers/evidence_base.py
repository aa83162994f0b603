"""What every line reader of a paste shares (evidence.py): the fact a line states, the state one pass
keeps, and the words they all read (versions, known packages, GPU product names, torch as written)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

AMD_UNNAMED = "AMD GPU"
"""The name of an AMD GPU a paste gives only by its gfx target."""


@dataclass(frozen=True)
class Fact:
    """One thing a line of the paste states."""

    kind: str
    value: str
    line: int
    detail: str = ""
    """A second value where the fact has one (a GPU's compute capability, a package's name)."""


KEY_VALUE = re.compile(
    r"^(?P<key>[A-Za-z][A-Za-z0-9 _()/.,+-]{0,60}?) ?(?:[:：=]|\.{3,}| {2,}|\t)[ \t.]*[:：=]?[ \t]*"
    r"(?P<value>\S.{0,600})$"
)
VERSION = (
    r"\d{1,4}\.\d{1,4}(?:\.\d{1,6})?(?:(?:a|b|rc|dev|post)\d{0,12}|\.(?:dev|post)\d{0,12})*(?:\+[\w.]{1,40})?"
)
VERSION_AT = re.compile(r"v?(?P<v>" + VERSION + r")")
KNOWN_PACKAGES = frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "xformers",
        "flash-attn",
        "flash_attn",
        "flashinfer",
        "flashinfer-python",
        "flashinfer_python",
        "vllm",
        "triton",
        "transformers",
        "numpy",
        "jax",
        "jaxlib",
        "deepspeed",
        "sglang",
        "sgl_kernel",
        "sgl-kernel",
        "bitsandbytes",
        "onnxruntime",
        "onnxruntime-gpu",
        "detectron2",
        "torchao",
        "cupy",
        "accelerate",
        "diffusers",
        "tensorflow",
        "mmcv",
        "mmcv-full",
        "mmdet",
        "peft",
        "protobuf",
        "opencv-python",
        "safetensors",
        "tensorrt",
    }
)
"""Names read as packages from ``name: version`` / ``name  version`` lines (check_env, prose, ComfyUI)."""


# Lines without a key: each needs the literal it is guarded by (checked with ``in``, cheap).
LOCAL_TAG = r"(?:cu\d{2,3}|cpu|rocm\d[\d.]{0,8}|xpu)"
TORCH_INLINE = re.compile(
    r"^(?:py)?torch(?: version)?[ :=]{1,3}v?(?P<v>" + VERSION + r")"
    r"(?: \+ (?P<local>" + LOCAL_TAG + r"))?(?:[\s;,)]|$)",
    re.I,
)
"""``torch 2.1.0``, ``PyTorch: 2.8.0+cu129``, and the build tag written apart, ``PyTorch 2.8.0 + cu129``."""
PYTHON_INLINE = re.compile(r"^Python (?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)(?:[\s;,]|$)")
_GPU_NAME = re.compile(
    r"(?P<name>(?:NVIDIA\s)?(?:GeForce\s|Tesla\s|Quadro\s|TITAN\s)?"
    r"(?:RTX\s?PRO\s\d{4}|RTX\s?A?\d{3,4}|GTX\s?\d{3,4}|GT\s\d{3,4}|GeForce\s\d{3,4}|TITAN\s(?:RTX|V|Xp?)|"
    r"[ABHLTVPK]\d{1,3}(?:[A-Z]{1,3}\b|\b)|GH200|L40S?)"
    r"(?:\s?(?:Ti|SUPER|Super|D|Laptop GPU|Max-Q Design|Mobile|with Max-Q Design|\d{1,3}\s?GB))*)",
)
_GPU_WORD = re.compile(
    r"\b(?:NVIDIA|GeForce|Tesla|Quadro|RTX|GTX|TITAN)|\b[ABHLTVPK]\d{1,3}\b|\bH200\b|\bL40S?\b"
)
CUDA_NUMBER = re.compile(r"(?:cuda\s?)?(?P<v>\d{1,2}\.\d{1,2})(?:\.\d{1,4})?", re.I)
_ALIGNED_MORE = re.compile(r" {1,4}(?P<name>[A-Za-z][\w.-]{0,60}) {1,40}(?P<v>" + VERSION + r")(?= |$)")
"""A further ``name  version`` row after a first one on the same line: pip list rows run together when a
template field or a Markdown paragraph joins them ("onnxruntime   1.17.3 onnxruntime-gpu   1.17.1")."""
AMD_GPU = re.compile(r"(?:AMD |ATI )?(?:Radeon|Instinct)\b|AMD (?:Ryzen .{0,40}with Radeon|APU)\b")
"""An AMD GPU's product name ("AMD Radeon RX 6900 XT", "Instinct MI250X"): not an NVIDIA device."""
GFX = re.compile(r"\bgfx(?:\d{3,4}|90[a-c])[a-z]?\b")
APPLE_GPU = re.compile(r"^Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?\b")
"""An Apple silicon GPU named in a GPU field ("GPU name: Apple M1", "GPU: Apple M4, 10 cores"): every one
of them runs Metal, so the name alone is the Mac's Metal GPU."""
INTEL_GPU_WORD = re.compile(r"\b(?:Graphics|Arc|GPU|Iris|UHD|Xe)\b")
"""An Intel product that is a GPU ("Arc(TM) A770 Graphics", "Data Center GPU Max 1550"), not a Core CPU or
the FPGA emulator a SYCL list also shows."""


@dataclass
class Reader:
    """The state one pass over the lines keeps: the key a heading announced, pip show's current name."""

    facts: list[Fact] = field(default_factory=list)
    heading: tuple[str, int] | None = None
    pip_show: str | None = None
    last_code: str = ""
    torch_config: bool = False
    """Whether a "PyTorch built with:" line (``torch.__config__.show()``) came before."""
    json_name: tuple[str, int] | None = None
    """The last ``"_name" : "..."`` member of a ``system_profiler -json`` listing and its line."""
    product: tuple[str, int] | None = None
    """sw_vers' ``ProductName`` (macOS) and its line, waiting for the ``ProductVersion`` after it."""

    def add(self, kind: str, value: str, line: int, detail: str = "") -> None:
        self.facts.append(Fact(kind, value.strip().rstrip("."), line, detail))

    def facts_on(self, number: int) -> bool:
        """Whether line ``number`` already gave a fact."""
        return bool(self.facts) and self.facts[-1].line == number


def gpu_name(text: str) -> str | None:
    """A GPU product name in ``text`` with its spelling made regular (``RTX4090`` -> ``RTX 4090``)."""
    if _GPU_WORD.search(text) is None:
        return None
    match = _GPU_NAME.search(text)
    if match is None:
        return None
    name = match.group("name").strip()
    name = re.sub(r"\b(RTX|GTX)(?=\d)", r"\1 ", name)
    name = re.sub(r"(?<=\d)(ti|Ti)\b", r" Ti", name)
    name = re.sub(r"\bGeForce (?=\d{4}\b)", "GeForce RTX ", name)
    if re.match(r"[ABHLTVPK]\d", name):
        return None  # a lone "T4"/"A1" is too easily something else: only "NVIDIA A100", "Tesla T4" count
    return name


def version_in(value: str) -> str | None:
    match = VERSION_AT.match(value)
    return match.group("v") if match else None


def more_rows(rest: str) -> list[tuple[str, str]]:
    """The further pip list rows run together after a first one: only when the rest of the line is
    nothing but such rows, each a known package (a row followed by prose is one row and prose)."""
    rows: list[tuple[str, str]] = []
    at = 0
    while at < len(rest):
        row = _ALIGNED_MORE.match(rest, at)
        if row is None or row.group("name").lower() not in KNOWN_PACKAGES:
            return []
        rows.append((row.group("name").lower(), row.group("v")))
        at = row.end()
    return rows


def torch_of(match: re.Match[str]) -> str:
    """The version an inline torch match states, its build tag joined when written apart."""
    version = match.group("v")
    local = match.group("local")
    return f"{version}+{local}" if local and "+" not in version else version
