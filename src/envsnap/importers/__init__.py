"""Importers: turn the reports people already paste into snapshots the rules and diff can judge.

``collect-env`` (``python -m torch.utils.collect_env``), ``pip-freeze`` and ``nvidia-smi-xml``
(``nvidia-smi -q -x``), and ``auto``: any mix of the formats detect.py knows, in one pasted text.
Input is untrusted: it is size-capped, must be text, and every parse
failure is a one-line BadInput naming the file (exit code 2).
"""

from __future__ import annotations

import re
from typing import Literal

from envsnap.errors import BadInput
from envsnap.importers import collect_env, nvidia_smi_xml, pip_freeze
from envsnap.importers.base import ImportedSections, to_snapshot
from envsnap.snapshot.files import read_input
from envsnap.snapshot.model import Snapshot

ReportKind = Literal["collect-env", "pip-freeze", "nvidia-smi-xml", "auto"]
KINDS: tuple[ReportKind, ...] = ("collect-env", "pip-freeze", "nvidia-smi-xml", "auto")

MAX_PASTE_CHARS = 32 * 1024 * 1024
"""Largest pasted report any command reads (check, show, diff, import, the TUI): real ones are
kilobytes; past this it is not a report, and reading it would only cost time."""


def _check_size(text: str, name: str) -> None:
    if len(text) > MAX_PASTE_CHARS:
        raise BadInput(
            f"{name}: a pasted report larger than {MAX_PASTE_CHARS // (1024 * 1024)} MB; refusing it"
        )


def read_report(source: str) -> tuple[str, str]:
    """The text of a report file, or of standard input for ``-``; with the name to show in errors.

    Capped at the one paste cap every command applies (``MAX_PASTE_CHARS``, read as bytes: UTF-8 text
    has at least as many bytes as characters, so nothing under the cap is refused here)."""
    return read_input(source, MAX_PASTE_CHARS)


def parse_report(
    kind: ReportKind, text: str, name: str, *, captured_at: str, allow_partial: bool = False
) -> Snapshot:
    """Parse report text of the given kind into an (unfinalized) snapshot.

    Raises:
        BadInput: the text is not a report of that kind, or is damaged.
    """
    sections: ImportedSections
    _check_size(text, name)
    if kind == "auto":
        from envsnap.importers import envsnap_report
        from envsnap.importers.auto import parse_auto

        if envsnap_report.looks_like_report(text):  # envsnap's own report carries its snapshot whole
            return envsnap_report.parse(text, name)

        try:
            return parse_auto(text, name, captured_at=captured_at)
        except RecursionError as err:
            raise BadInput(f"{name}: nested too deeply to be a report") from err
    try:
        if kind == "collect-env":
            sections = collect_env.parse(text, name, allow_partial=allow_partial)
        elif kind == "pip-freeze":
            sections = pip_freeze.parse(text, name)
        else:
            sections = nvidia_smi_xml.parse(text, name, captured_at=captured_at)
    except BadInput as err:
        message = str(err)
        raise BadInput(message if message.startswith(name) else f"{name}: {message}") from err
    except RecursionError as err:
        raise BadInput(f"{name}: nested too deeply to be a {kind} report") from err
    return to_snapshot(sections, format_name=kind, file=name, captured_at=captured_at)


_SNAPSHOT = re.compile(r"^schema\s*:\s*\S", re.MULTILINE)


def looks_like_snapshot(text: str) -> bool:
    """Whether ``text`` is meant as an envsnap file (YAML with a top-level ``schema``: a snapshot or a
    run report, whose own loader names it), not a pasted report."""
    return text.lstrip().startswith("schema") or bool(_SNAPSHOT.search(text))


def load_any(text: str, name: str, *, captured_at: str) -> Snapshot:
    """A snapshot file as it is, or any pasted report imported (unfinalized).

    Raises:
        BadInput: a damaged snapshot, or text that is neither a snapshot nor a report.
    """
    from envsnap.importers import envsnap_report
    from envsnap.snapshot import store

    if envsnap_report.looks_like_report(text):  # before the snapshot test: its block has `schema:`
        return envsnap_report.parse(text, name)
    if looks_like_snapshot(text):
        return store.loads(text, name)
    _check_size(text, name)
    try:
        return parse_report("auto", text, name, captured_at=captured_at)
    except BadInput as not_report:
        try:
            return store.loads(text, name)  # a snapshot laid out oddly still loads
        except BadInput:
            raise not_report from None
