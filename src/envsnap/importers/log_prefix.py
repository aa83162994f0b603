"""Strip what a logger put in front of a line, so the line itself can be read.

People paste what ``docker logs``, ``kubectl logs``, ``journalctl``, ``dmesg``, vLLM's workers, SD.Next
or ComfyUI printed: torch's own warning then sits behind ``2024-03-11T17:05:11.375Z``, ``Oct 04
13:19:39 host unit[394]:``, ``[rank0]:``, ``INFO 05-12 10:00:01 [core.py:632]`` or ``(VllmWorker rank=0
pid=63590)``. Each pattern here is anchored at the start of the line, has no nested repetition and
reads a bounded prefix, so one pass over a line costs time linear in the prefix; a line is stripped
at most ``MAX_PASSES`` times (prefixes stack: a docker timestamp in front of a vLLM level prefix).

ComfyUI's logger also glues ``2025-03-21T19:14:28.837017 - `` inside lines; those are removed
wherever they are (one linear substitution).
"""

from __future__ import annotations

import re

MAX_PASSES = 4
"""Prefixes stacked deeper than this are left (no real log stacks more than three)."""

_PREFIXES = (
    # ISO timestamps (docker --timestamps, kubectl --timestamps, python logging), optionally followed
    # by " -", " |" or the old SD.Next "| sd | INFO | installer |" columns.
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
    r"(?: \|(?: [\w.-]{1,40} \|){1,4}| -| \|)? +",
    # [2024-11-06 23:40:38.499] and [2024-03-27 06:33:22,299] [    INFO] -
    r"\[\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?\](?: \[ {0,8}[A-Z]{3,8}\])?(?: -)? ?",
    # syslog / journald: "Oct 04 13:19:39 host unit[394]: " (also "2月 21 13:31:11 ...")
    r"(?:[A-Z][a-z]{2}|\d{1,2}月) {1,2}\d{1,2} \d{2}:\d{2}:\d{2} [\w.-]{1,64} "
    r"[\w.@/-]{1,64}(?:\[\d{1,10}\])?: ",
    # dmesg: "[ 7386.259769] " and "[   10.800842] [   T1343] "
    r"\[ {0,8}\d{1,10}\.\d{1,9}\](?: \[ {0,8}[TC]\d{1,10}\])? ",
    # torch.distributed / vLLM: "[rank0]: ", "(VllmWorker rank=0 pid=63590) ", "(EngineCore pid=105) "
    r"\[rank\d{1,6}\]: ?",
    r"\((?:[A-Za-z_]{1,32}(?: rank=\d{1,6})?(?: pid=\d{1,10})?)\) ",
    # vLLM / glog-style level prefix: "INFO 05-12 10:00:01 [core.py:632] "
    r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?"
    r"(?: \[[\w./:-]{1,80}\])? ",
    # SD.Next's rich logger: "22:47:24-316415 INFO     "
    r"\d{2}:\d{2}:\d{2}-\d{6} (?:INFO|DEBUG|WARNING|ERROR|TRACE|CRITICAL) +",
    # mmdet after its timestamp: "mmdet - INFO - "
    r"[\w.]{1,40} - (?:INFO|WARNING|ERROR|DEBUG) - ",
    # docker compose: "vllm-qwen-72b-instruct  | "
    r"[\w.-]{1,64} {1,8}\| ",
    # [INFO] / [Crystools INFO] / [INFO][Stream] 03.02.2025 22:40:34 [] (unknown:0) - / INFO:
    r"\[(?:[\w ]{1,40} )?(?:INFO|WARNING|WARN|ERROR|DEBUG)\]"
    r"(?:\[Stream\] [\d.]{1,12} [\d:]{1,12} \[\] \([\w:]{1,40}\) - )? ?",
    r"(?:INFO|WARNING|ERROR|DEBUG):(?=\S)",
    # k9s / kubectl box drawing
    r"│ ",
)
_PREFIX = re.compile("|".join(f"(?:{p})" for p in _PREFIXES))
_GLUED_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6} - ?")
_CONDA_PLAN_ROW = re.compile(
    r"[ \t]{0,12}[A-Za-z0-9][\w.-]{0,80}-[0-9][\w.!+]{0,40} {1,40}\| {1,40}[\w.+]{1,60} {1,20}"
    r"[\d.]{1,10} ?[KMG]?B "
)
"""A row of conda's download table (``cudatoolkit-10.2.89   |  h74a9793_1   317.2 MB  defaults``): its
``name-version  |`` is no docker compose prefix, though it has the same shape."""


def strip(line: str) -> str:
    """``line`` without the log prefixes in front of it (and ComfyUI's glued timestamps).

    A line with no prefix keeps its indentation (nvidia-smi -q and amd-smi nest by it); one with a
    prefix, possibly indented itself by the paste, loses both.
    """
    if "T" in line and " - " in line:
        line = _GLUED_ISO.sub("", line)
    if "|" in line and _CONDA_PLAN_ROW.match(line):
        return line
    body = line.lstrip(" \t")
    stripped = False
    for _ in range(MAX_PASSES):
        match = _PREFIX.match(body)
        if match is None or match.end() == 0:
            break
        body, stripped = body[match.end() :], True
    return body if stripped else line


def strip_text(text: str) -> str:
    """Every line of ``text`` stripped; the line count (and so line numbers) is unchanged."""
    return "\n".join([strip(line) for line in text.split("\n")])
