"""Find the report sections in a pasted text: which formats it holds, and where.

A bug report is rarely one clean format: a GitHub comment holds a ``collect_env`` block, an
``nvidia-smi`` table, a ``pip list`` and the traceback that made the user write, in Markdown fences
and between sentences. Each detector here looks for its format's own markers (a header line, a
table rule, a JSON shape) and hands its parser the lines that belong to it; nothing is guessed from
a lone word. ``FORMATS`` lists every format tried, in the order a "not a report" error names them.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envsnap.errors import BadInput
from envsnap.importers import (
    amd_smi,
    collect_env,
    nvidia_smi_text,
    nvidia_smi_xml,
    package_lists,
    pip_freeze,
    repl,
)
from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import CudaToolkit, Environment, Toolkits

FORMATS = (
    "envsnap snapshot",
    "collect-env (torch)",
    "collect-env (vLLM)",
    "nvidia-smi",
    "nvidia-smi -q",
    "nvidia-smi -L",
    "nvidia-smi -q -x",
    "rocm-smi",
    "amd-smi",
    "rocminfo",
    "pip list",
    "pip freeze",
    "conda list",
    "uv install log",
    "nvcc --version",
    "shell environment (export lines)",
    "python session (torch.__version__)",
    "torch warnings / traceback",
)
"""Every format the detector tries, as named in messages."""


@dataclass(frozen=True)
class Found:
    """One detected section: its format name and what it says."""

    format: str
    sections: ImportedSections | None
    missing: tuple[str, ...] = ()
    """For a cut-off collect_env: the sections it lacks."""


_FENCE = re.compile(r"^\s*(```|~~~)")
_VLLM = re.compile(
    r"^[ \t]*vLLM Version[ \t]*[:：]|^[ \t]*=+[ \t]*\n[ \t]*vLLM Info", re.IGNORECASE | re.MULTILINE
)
_TORCH_LABEL = re.compile(
    r"^[ \t]*PyTorch version[ \t]*[:：]?[ \t]*\S"
    r"|Collecting environment information\.\.\.[ \t]*PyTorch version",
    re.IGNORECASE | re.MULTILINE,
)
_FREEZE_LINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*(?:===?\s*\S+|\s@\s\S+)$")
_NVCC = re.compile(r"Cuda compilation tools, release (?P<version>\d+\.\d+), V(?P<full>\d+\.\d+\.\d+)")
_SHELL_ENV = re.compile(
    r"(?:^|(?<=[\s\"'`$]))(?:export|set)\s+(?P<key>CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|"
    r"HSA_OVERRIDE_GFX_VERSION|LD_LIBRARY_PATH|PYTORCH_ENABLE_MPS_FALLBACK|CUDA_HOME)=(?P<value>[^\s\"'`]*)",
    re.MULTILINE,
)
"""``export VAR=value`` (or Windows ``set``) lines for the variables the rules read; nothing else."""
_PROMPT_ENV = re.compile(
    r"(?:^\$|[\w.-]{1,64}@[\w.-]{1,64}:[^\s#$]{0,200}[#$]"
    # Fedora/Arch bash's "[user@host dir]$ ", after a virtualenv's "(venv) " when one is active
    r"|^(?:\([\w.-]{1,64}\)[ \t]{1,4})?\[[\w.-]{1,64}@[\w.-]{1,64}(?:[ \t][^\]\n]{1,200})?\][#$])[ \t]{1,8}"
    r"(?P<key>HSA_OVERRIDE_GFX_VERSION|PYTORCH_ENABLE_MPS_FALLBACK)=(?P<value>[\w.,:+/-]{1,200})"
    r"[ \t]{1,8}[\w./-]",
    re.MULTILINE,
)
"""``VAR=value command`` typed after a shell prompt (``$ ``, ``user@host:path# ``, ``[user@host dir]$ ``): the
variable is set for that command, as a session shows it run (``root@c0ffee:/w# HSA_OVERRIDE_GFX_VERSION=9.0.0
python3``). Only
after a prompt: the same words in a sentence or a script may be a suggestion or commented out. The value is
a gfx version or a flag: any other character (a quote, an escape) ends the match. Not the visibility
variables: a session runs each command with its own list (``CUDA_VISIBLE_DEVICES=2 llama-bench``, then
``=1``), and the GPUs it shows come from another command, so no one value is the paste's environment."""
_ECHO_ENV = re.compile(
    r"(?:\A|(?<=[\s>$]))echo[ \t]+\$\{?"
    r"(?P<key>CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES)\}?"
    r"[ \t]*\r?\n(?P<value>[\w,.:-]{1,4096})[ \t]*(?:\r?\n|\Z)"
)
"""``echo $CUDA_VISIBLE_DEVICES`` and the value the shell printed on the next line, for the visibility
variables only: a device list (indices, GPU-/MIG- UUIDs) and nothing else; the ``export`` form wins."""
_ADVICE_BEFORE = re.compile(
    r"\b(?:use|try|run|add|you (?:can|could|should|need to|must|may)|please|consider|recommend)\s+"
    r"(?:setting\s+|using\s+|running\s+|adding\s+)?[`'\"]?\$?\s*$",
    re.IGNORECASE,
)
"""An ``export`` that a sentence tells someone to run ("use `export HSA_OVERRIDE_GFX_VERSION=11.0.0`",
typically a maintainer's reply quoted with the report) is advice, not the reporter's environment."""


def _prompt_variables(text: str) -> dict[str, str]:
    """The variables typed before a command after a prompt; one set to several values in the paste is none."""
    seen: dict[str, set[str]] = {}
    for m in _PROMPT_ENV.finditer(text) if "=" in text else ():
        seen.setdefault(m.group("key"), set()).add(m.group("value"))
    return {key: values.pop() for key, values in seen.items() if len(values) == 1}


def _is_advice(text: str, start: int) -> bool:
    """Whether the words just before ``start`` on its line tell someone to run the export."""
    line_start = text.rfind("\n", 0, start) + 1
    return _ADVICE_BEFORE.search(text, max(line_start, start - 60), start) is not None


_TRACEBACK = re.compile(r"^[ \t]*Traceback \(most recent call last\):", re.MULTILINE)
_XML_START = re.compile(r"<\?xml[^>]*>\s*(?:<!DOCTYPE[^>]*>\s*)?<nvidia_smi_log|<nvidia_smi_log")
_ROCM_SMI_BANNER = re.compile(r"ROCm System Management Interface|^GPU\[\d+\]\s*:", re.MULTILINE)


def _json_blocks(text: str, lines: list[str]) -> list[Any]:
    """The whole text as JSON, else each fenced block or ``{``...``}`` run that parses as JSON."""
    candidates = [text.strip()]
    start: int | None = None
    for position, line in enumerate(lines):
        if start is None and line.rstrip() in ("{", "["):
            start = position
        elif start is not None and line.rstrip() in ("}", "]"):
            candidates.append("\n".join(lines[start : position + 1]))
            start = None
    blocks = []
    for candidate in candidates:
        if not candidate.startswith(("{", "[")):
            continue
        try:
            blocks.append(json.loads(candidate))
        except (ValueError, RecursionError):
            continue
    return blocks


def _json_sections(text: str, lines: list[str]) -> list[Found]:
    found = []
    for data in _json_blocks(text, lines):
        if isinstance(data, dict) and any(re.fullmatch(r"card\d+", str(k)) for k in data):
            sections = amd_smi.parse_rocm_smi_json(data)
            if sections is not None:
                found.append(Found("rocm-smi --json", sections))
        elif (isinstance(data, dict) and isinstance(data.get("gpu_data"), list)) or (
            isinstance(data, list) and data and all(isinstance(e, dict) and "gpu" in e for e in data)
        ):
            sections = amd_smi.parse_amd_smi_json(data)
            if sections is not None:
                found.append(Found("amd-smi --json", sections))
        if found:
            break  # the whole text parsed: its fenced parts are the same data
    return found


def _freeze_runs(lines: list[str], prefix: str = "") -> list[list[str]]:
    """Runs of two or more ``name==version`` lines (a ``pip freeze``), blank lines allowed inside.

    With ``prefix`` (``"+ "``), the lines of a ``uv pip install`` log: `` + name==version``.
    """
    runs: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        stripped = line.strip()
        if prefix and stripped.startswith(prefix):
            stripped = stripped[len(prefix) :]
        elif prefix:
            stripped = "#"  # not a line of the log: ends a run like any other text
        if _FREEZE_LINE.match(stripped):
            current.append(stripped)
        elif stripped and (prefix or not stripped.startswith("#")):
            if len(current) >= 2:
                runs.append(current)
            current = []
    if len(current) >= 2:
        runs.append(current)
    return runs


def _from(lines: list[str], pattern: re.Pattern[str]) -> list[str]:
    """``lines`` from the first one matching ``pattern`` on."""
    for position, line in enumerate(lines):
        if pattern.search(line):
            return lines[position:]
    return []


def detect(text: str, name: str, *, captured_at: str, json_text: str | None = None) -> list[Found]:
    """Every report section in ``text``, in a fixed order (not the order of the paste).

    ``json_text`` is the paste before its lines were clipped (JSON reports are one long line).
    """
    lines = [
        line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if not _FENCE.match(line)
    ]
    found: list[Found] = []

    def attempt(fmt: str, parse: Callable[[], ImportedSections | None]) -> None:
        sections = parse()
        if sections is not None:
            found.append(Found(fmt, sections))

    labels = collect_env.labels(text)
    # "pytorch version: 2.7.0" and "Python version: 3.12" are how ComfyUI starts up, not a collect_env
    # report: a label only collect_env prints (or four without the head) makes it one.
    own = labels - collect_env.COMMON_LABELS
    if (_TORCH_LABEL.search(text) and own) or len(labels) >= collect_env.MIN_LABELS_WITHOUT_HEAD:
        sections, missing = collect_env.parse_with_gaps(text, name)
        found.append(Found("collect-env (vLLM)" if _VLLM.search(text) else "collect-env", sections, missing))
    if nvidia_smi_text.QUERY_HEADER.search(text):
        attempt(
            "nvidia-smi -q",
            lambda: nvidia_smi_text.parse_query(_from(lines, nvidia_smi_text.QUERY_HEADER)[1:]),
        )
    # Lists, not generators, in these any(): a generator costs a Python call per line.
    if any([nvidia_smi_text.LIST_LINE.match(line.strip()) for line in lines]):  # noqa: C419
        attempt("nvidia-smi -L", lambda: nvidia_smi_text.parse_list(lines))
    xml = _XML_START.search(text)
    if xml and "</nvidia_smi_log>" in text:
        end = text.index("</nvidia_smi_log>", xml.start()) + len("</nvidia_smi_log>")
        with contextlib.suppress(BadInput):  # a damaged XML block among other sections: the rest stands
            found.append(
                Found(
                    "nvidia-smi -q -x",
                    nvidia_smi_xml.parse(text[xml.start() : end], name, captured_at=captured_at),
                )
            )
    # The table cuts long names ("NVIDIA GeForce RTX 2080 ..."): -q, -L and the XML, read first, win.
    if nvidia_smi_text.TABLE_HEADER.search(text) or nvidia_smi_text.MIG_TABLE.search(text):
        start = (
            nvidia_smi_text.TABLE_HEADER
            if nvidia_smi_text.TABLE_HEADER.search(text)
            else nvidia_smi_text.MIG_TABLE
        )
        attempt("nvidia-smi", lambda: nvidia_smi_text.parse_table(_from(lines, start)))
    if _ROCM_SMI_BANNER.search(text):
        attempt("rocm-smi", lambda: amd_smi.parse_rocm_smi_text(lines))
    if amd_smi.ROCM_SMI_CONCISE.search(text):
        attempt("rocm-smi (concise)", lambda: amd_smi.parse_rocm_smi_concise(lines))
    if amd_smi.looks_like_rocminfo(text):
        attempt("rocminfo", lambda: amd_smi.parse_rocminfo(lines))
    amd_smi_gpu = any([amd_smi.AMD_SMI_GPU.match(line.strip()) for line in lines])  # noqa: C419
    if amd_smi_gpu and re.search(r"^[ \t]+ASIC:[ \t]*$", text, re.M):
        attempt("amd-smi", lambda: amd_smi.parse_amd_smi_text(lines))
    elif amd_smi_gpu and len(set(amd_smi.AMD_SMI_METRIC_SECTION.findall(text))) >= 2:
        # ``amd-smi metric`` text: two of its section headings under ``GPU: N`` (the index alone)
        attempt("amd-smi metric", lambda: amd_smi.parse_amd_smi_text(lines))
    whole = json_text if json_text is not None else text
    found.extend(_json_sections(whole, whole.split("\n") if json_text is not None else lines))
    if not any(f.format.startswith("rocm-smi --json") for f in found) and '"card' in whole:
        # a rocm-smi --json paste cut short: no parser reads it whole, its lines still name the GPUs
        attempt("rocm-smi --json (cut short)", lambda: amd_smi.parse_rocm_smi_json_lines(lines))
    conda = next(
        (pos for pos, line in enumerate(lines) if package_lists.CONDA_HEADER.match(line.strip())), None
    )
    if any([package_lists.PIP_LIST_HEADER.match(line.strip()) for line in lines]):  # noqa: C419
        attempt("pip list", lambda: package_lists.parse_pip_list(lines))
    elif conda is None:
        headless = package_lists.parse_headless_list(lines)
        if headless is not None:
            # rows with a build and a channel are a conda list cut above (or grepped without) its header
            conda_rows = any(p.installer for p in headless.packages or ())
            found.append(Found("conda list" if conda_rows else "pip list", headless))
    if conda is not None:
        attempt("conda list", lambda: package_lists.parse_conda_list(lines[conda:]))
    if package_lists.CONDA_PLAN.search(text):
        attempt("conda plan", lambda: package_lists.parse_conda_plan(lines))
    for run in _freeze_runs(lines):
        try:
            found.append(Found("pip freeze", pip_freeze.parse("\n".join(run), name)))
        except BadInput:
            continue
    for run in _freeze_runs(lines, "+ "):
        with contextlib.suppress(BadInput):
            found.append(Found("uv install log", pip_freeze.parse("\n".join(run), name)))
    nvcc = _NVCC.search(text)
    if nvcc:
        toolkit = CudaToolkit(status="ok", nvcc_version=nvcc.group("full"), version=nvcc.group("version"))
        found.append(Found("nvcc --version", ImportedSections(toolkits=Toolkits(cuda=toolkit))))
    variables = {
        m.group("key"): m.group("value").strip("'\"")
        for m in _SHELL_ENV.finditer(text)
        if not _is_advice(text, m.start())
    }
    variables.update((k, v) for k, v in _prompt_variables(text).items() if k not in variables)
    for m in _ECHO_ENV.finditer(text):
        variables.setdefault(m.group("key"), m.group("value"))
    if variables:
        found.append(
            Found(
                "shell environment",
                ImportedSections(environment=Environment(status="ok", variables=variables)),
            )
        )
    attempt("python session (torch.__version__)", lambda: repl.parse(text))
    if _TRACEBACK.search(text):
        found.append(Found("traceback", None))
    return found
