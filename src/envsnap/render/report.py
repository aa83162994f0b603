"""``envsnap report``: the environment block people paste into a bug report, and envsnap reads back.

Three parts: a summary a maintainer reads in the issue itself (report_summary.py), the findings
with their fixes, and the whole redacted snapshot, collapsed in ``<details>`` (Markdown) or after
a rule (text), in the block format that survives rendering, quoting and CRLF
(snapshot/report_block.py). ``envsnap check/show/diff/tui`` on the pasted text read that block.

A GitHub issue or comment holds at most 65,536 characters. A report that would be longer is cut,
in order, where it costs the diagnosis least (probe timings, then per-process GPU lists, then the
findings copy in the block, then the Requires-Dist lists of packages no finding names, ...), and
a note above the block names every cut. A cut block stays self-consistent: its fingerprint is
recomputed and its ``meta.origin`` says it is a partial import and what it lacks, so a diff of it
against the full snapshot does not report the cut parts as removed.

Every value from the snapshot is made inert: Markdown-escaped (a package name cannot become a
link, an image or HTML in someone's issue) or, in text, terminal-escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from envsnap._version import __version__
from envsnap.render.diff import _code, _md
from envsnap.render.findings import summary_line
from envsnap.render.findings_markdown import _ICONS, _fix, _value
from envsnap.render.report_summary import KEY_PACKAGES, summary_rows
from envsnap.snapshot import report_block
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import Finding, Origin, Snapshot
from envsnap.snapshot.safe_text import one_line

Format = Literal["markdown", "text"]

MAX_CHARS = 65_536
"""GitHub's limit on an issue or comment body, in characters; a report stays below it."""
MAX_EVIDENCE = 3
MAX_VALUE = 200
READ_BACK = "`envsnap check FILE` (or `show`, `diff`, `tui`) reads this whole text back"


@dataclass(frozen=True)
class Cut:
    """One way to make the block smaller: what it leaves out, and how."""

    note: str
    apply: Callable[[Snapshot, frozenset[str]], tuple[Snapshot, int]]
    """``(smaller snapshot, how many items were left out)``; 0 items: nothing to cut here."""


def _named(findings: Sequence[Finding]) -> frozenset[str]:
    """Package names a finding mentions (evidence paths and values, titles): their details stay."""
    text = " ".join(
        f"{item.title} {' '.join(f'{e.path} {e.value}' for e in item.evidence)}" for item in findings
    ).lower()
    # `packages[flash_attn].version`, `torchvision 0.19.0+cu121 needs ...`: the names as words.
    return frozenset(_NAME_SPLIT.split(text.replace("_", "-")))


_NAME_SPLIT = re.compile(r"[^a-z0-9.+-]+")


def _keep(name: str, named: frozenset[str]) -> bool:
    key = name.lower().replace("_", "-")
    return key in KEY_PACKAGES or key.startswith(("nvidia-", "torch", "jax")) or key in named


def _cut_probes(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
    probes = snapshot.meta.probes
    if not probes:
        return snapshot, 0
    return msgspec.structs.replace(snapshot, meta=msgspec.structs.replace(snapshot.meta, probes=None)), len(
        probes
    )


def _cut_processes(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
    telemetry = snapshot.telemetry
    if telemetry is None:
        return snapshot, 0
    count = sum(len(device.processes or ()) for device in telemetry.devices)
    devices = tuple(msgspec.structs.replace(device, processes=None) for device in telemetry.devices)
    return msgspec.structs.replace(
        snapshot, telemetry=msgspec.structs.replace(telemetry, devices=devices)
    ), count


def _cut_findings(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
    count = len(snapshot.findings or ())
    return (msgspec.structs.replace(snapshot, findings=None), count) if count else (snapshot, 0)


def _package_field(
    field: str, *, all_packages: bool = False
) -> Callable[[Snapshot, frozenset[str]], tuple[Snapshot, int]]:
    def cut(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
        count = 0
        packages = []
        for package in snapshot.packages or ():
            if getattr(package, field) is not None and (all_packages or not _keep(package.name, named)):
                package = msgspec.structs.replace(package, **{field: None})
                count += 1
            packages.append(package)
        return (
            (msgspec.structs.replace(snapshot, packages=tuple(packages)), count) if count else (snapshot, 0)
        )

    return cut


def _cut_extensions(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
    extensions = snapshot.extensions
    if extensions is None or not (extensions.distributions or extensions.unreadable_files):
        return snapshot, 0
    count = len(extensions.distributions or ()) + len(extensions.unreadable_files or ())
    smaller = msgspec.structs.replace(extensions, distributions=None, unreadable_files=None)
    return msgspec.structs.replace(snapshot, extensions=smaller), count


def _cut_other_packages(snapshot: Snapshot, named: frozenset[str]) -> tuple[Snapshot, int]:
    packages = snapshot.packages or ()
    kept = tuple(package for package in packages if _keep(package.name, named))
    count = len(packages) - len(kept)
    return (msgspec.structs.replace(snapshot, packages=kept), count) if count else (snapshot, 0)


CUTS = (
    Cut("probe timings (meta.probes, {n})", _cut_probes),
    Cut("GPU process lists (telemetry, {n} processes)", _cut_processes),
    Cut("the copy of the findings (listed above; `check` recomputes them)", _cut_findings),
    Cut("Requires-Dist lists of {n} packages no finding names", _package_field("requires")),
    Cut("top-level import names of {n} packages no finding names", _package_field("top_level")),
    Cut("compiled-extension details ({n} entries)", _cut_extensions),
    Cut("install sources of {n} packages", _package_field("source", all_packages=True)),
    Cut("installers of {n} packages", _package_field("installer", all_packages=True)),
    Cut("{n} packages that are neither ML packages nor named by a finding", _cut_other_packages),
    Cut("Requires-Dist lists of the other {n} packages", _package_field("requires", all_packages=True)),
    Cut("top-level import names of the other {n} packages", _package_field("top_level", all_packages=True)),
)
"""In order: what is cut first costs the diagnosis least."""


def _marked_partial(snapshot: Snapshot, notes: Sequence[str]) -> Snapshot:
    """A cut snapshot that says so: a partial import lacking ``notes``, its own fingerprint."""
    origin = Origin(
        kind="import",
        format="envsnap report",
        sections=("envsnap report",),
        partial=True,
        missing=tuple(notes),
    )
    marked = msgspec.structs.replace(snapshot, meta=msgspec.structs.replace(snapshot.meta, origin=origin))
    return msgspec.structs.replace(marked, fingerprint=fingerprint(marked))


# ---------------------------------------------------------------------------- the parts


def _summary_markdown(snapshot: Snapshot) -> list[str]:
    lines = ["| | |", "|---|---|"]
    for label, value in summary_rows(snapshot):
        lines.append(f"| **{label}** | {_md(value)} |")
    if snapshot.fingerprint:
        lines.append(f"| **Fingerprint** | `{_code(snapshot.fingerprint)}` |")
    return lines


def _findings_markdown(findings: Sequence[Finding]) -> list[str]:
    lines = [f"#### Findings: {_md(summary_line(findings))}"]
    if findings:
        lines.append("")
    for item in findings:
        title = _md(_value(item.title, MAX_VALUE))
        lines.append(f"- {_ICONS.get(item.severity, '')} **{title}** (`{_code(item.id, in_table=False)}`)")
        for evidence in item.evidence[:MAX_EVIDENCE]:
            lines.append(f"  - `{_code(evidence.path, in_table=False)}` = {_md(_value(evidence.value))}")
        lines.append(f"  - **Fix:** {_fix(_value(item.fix, 600))}")
        if item.source:
            lines.append(f"  - Source: <{_code(item.source, in_table=False)}>")
    return lines


def _short(fingerprint: str | None) -> str:
    """``, sha256:c50a6f7d1077…`` (the whole one is in the summary and on the block's last line)."""
    return f", {fingerprint[:19]}…" if fingerprint else ""


def _fence(block: str) -> str:
    """A code fence longer than any backtick run in ``block`` (CommonMark: it cannot end early)."""
    longest = run = 0
    for char in block:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _markdown(
    snapshot: Snapshot, findings: Sequence[Finding], block: str | None, cut_note: str | None
) -> str:
    lines = [f"<!-- envsnap report: {READ_BACK} -->", "### envsnap report", ""]
    lines += _summary_markdown(snapshot)
    lines += ["", *_findings_markdown(findings), ""]
    if cut_note:
        lines += [f"**Cut to fit GitHub's {MAX_CHARS:,}-character limit:** {cut_note}", ""]  # our words only
    if block is not None:
        fence = _fence(block)
        count = block.count("\n") - 2
        lines += [
            "<details>",
            f"<summary>Full snapshot (redacted), {count} lines{_short(snapshot.fingerprint)}</summary>",
            "",
            f"{fence}yaml",
            block.rstrip("\n"),
            fence,
            "",
            "</details>",
            "",
        ]
    lines.append(f"<sub>envsnap {_md(__version__)} · {READ_BACK}</sub>")
    return "\n".join(lines) + "\n"


def _text(snapshot: Snapshot, findings: Sequence[Finding], block: str | None, cut_note: str | None) -> str:
    lines = [f"envsnap report (envsnap {__version__}): {READ_BACK}", ""]
    rows = summary_rows(snapshot)
    if snapshot.fingerprint:
        rows.append(("Fingerprint", snapshot.fingerprint))
    width = max(len(label) for label, _ in rows)
    lines += [f"{label:<{width}}  {one_line(value)}" for label, value in rows]
    lines += ["", f"Findings: {summary_line(findings)}"]
    for item in findings:
        lines.append(f"  [{item.severity}] {one_line(_value(item.title, MAX_VALUE))} ({one_line(item.id)})")
        for evidence in item.evidence[:MAX_EVIDENCE]:
            lines.append(f"      {one_line(evidence.path)} = {one_line(_value(evidence.value))}")
        lines.append(f"      fix: {one_line(_value(item.fix, 600))}")
        if item.source:
            lines.append(f"      source: {one_line(item.source)}")
    if cut_note:
        lines += ["", f"Cut to fit {MAX_CHARS:,} characters: {one_line(cut_note)}"]
    if block is not None:
        count = block.count("\n") - 2
        lines += [
            "",
            f"Full snapshot (redacted), {count} lines{_short(snapshot.fingerprint)}:",
            block.rstrip("\n"),
        ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- assembly


def render_report(snapshot: Snapshot, findings: Sequence[Finding], fmt: Format = "markdown") -> str:
    """The report for ``snapshot`` (redacted, fingerprinted) and its ``findings``, under MAX_CHARS."""
    render = _markdown if fmt == "markdown" else _text
    text = render(snapshot, findings, report_block.encode(snapshot), None)
    if len(text) < MAX_CHARS:
        return text
    named = _named(findings)
    smaller, notes = snapshot, []
    for cut in CUTS:
        smaller, count = cut.apply(smaller, named)
        if not count:
            continue
        notes.append(cut.note.format(n=count))
        marked = _marked_partial(smaller, notes)
        note = _cut_note(notes, snapshot.fingerprint)
        text = render(snapshot, findings, report_block.encode(marked), note)
        if len(text) < MAX_CHARS:
            return text
    note = _cut_note([*notes, "the snapshot itself (too large even so)"], snapshot.fingerprint)
    kept = list(findings)
    while True:
        shown = (
            ""
            if len(kept) == len(findings)
            else (
                f" Only {len(kept)} of the {len(findings)} findings are listed"
                " (`envsnap check` lists them all)."
            )
        )
        text = render(snapshot, kept, None, note + shown)
        if len(text) < MAX_CHARS or not kept:
            return text
        kept = kept[: len(kept) // 2]


def _cut_note(notes: Sequence[str], full: str | None) -> str:
    whole = f" The whole snapshot's fingerprint is {full}." if full else ""
    return (
        f"left out {'; '.join(notes)}. The findings above are from the whole snapshot.{whole} "
        "Attach the file `envsnap save -o snapshot.yaml` writes for everything."
    )
