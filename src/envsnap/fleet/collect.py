"""Collection: run ``envsnap save -o -`` on every node; each node's output becomes a snapshot or a failure.

Every node ends in exactly one of the index's statuses, so one bad node never costs the others:

- ``ok``: it printed a valid snapshot (read with store's distrustful parser, secrets redacted
  again, fingerprint recomputed; masked with ``--anonymize``);
- ``unreachable``: the transport could not run anything there (ssh exit 255, node down);
- ``timed-out``: no complete answer within the per-node timeout;
- ``envsnap-missing``: the shell or Python could not find envsnap (exit 127, ``No module named``);
- ``probe-failed``: envsnap ran and failed, or printed something that is not a snapshot (too large,
  binary, not YAML, a wrong schema).

Results are written into the folder atomically, node files first and the index (``fleet.yaml``)
last. File names come from nodes.node_files, never from the node's own output. The folder may be
shared: a link, or a file envsnap did not write, where a file is to go is refused (files.write_owned).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from envsnap.errors import BadInput
from envsnap.fleet.index import FleetIndex, NodeRecord, Status, write_index
from envsnap.fleet.nodes import inside, node_files
from envsnap.fleet.transport import MAX_STDOUT_BYTES, NodeOutput, ProgressCallback, Transport
from envsnap.snapshot.child_python import module_argv
from envsnap.snapshot.model import Snapshot

MAX_REASON_CHARS = 300
SNAPSHOT_MARKER = "# envsnap snapshot"
"""How every snapshot file starts (store.dumps): a node file of an earlier collection."""
_MISSING = re.compile(
    r"No module named '?envsnap|envsnap: (command )?not found|envsnap: No such file|"
    r"python[0-9.]*: (command )?not found|: No such file or directory$|: not found$"
)
"""What a shell or Python says when the command itself is missing (exit 127 or 1)."""


@dataclass(frozen=True)
class RemoteCommand:
    """What runs on each node."""

    python: str | None = None
    """The nodes' interpreter that has envsnap (``PATH -m envsnap``); default: ``envsnap`` on PATH."""
    anonymize: bool = False
    frameworks: bool = True

    def argv(self) -> list[str]:
        # ``-m`` through child_python: srun starts each task in the submitting folder, whose
        # ``envsnap/`` (an untrusted checkout) must not be what runs.
        head = module_argv(self.python, "envsnap") if self.python else ["envsnap"]
        tail = (["--anonymize"] if self.anonymize else []) + ([] if self.frameworks else ["--no-frameworks"])
        return [*head, "save", "-o", "-", *tail]


@dataclass(frozen=True)
class NodeResult:
    """One node's outcome: its index record and, when ok, its snapshot."""

    record: NodeRecord
    snapshot: Snapshot | None = None


def collect(
    transport: Transport,
    folder: Path,
    command: RemoteCommand,
    *,
    collected_at: str,
    progress: ProgressCallback | None = None,
) -> tuple[FleetIndex, list[NodeResult]]:
    """Run the command everywhere, write the node snapshots and the index into ``folder``.

    Raises:
        BadInput: the folder can't be written, or the transport could not start at all.
    """
    _prepare(folder)
    argv = command.argv()
    outputs = transport.run(argv, progress)
    results = [classify(output, anonymize=command.anonymize) for output in outputs]
    results = _dedupe(results)
    files = node_files(result.record.name for result in results)
    written = []
    from envsnap.snapshot import store
    from envsnap.snapshot.files import write_owned

    for result in results:
        if result.snapshot is None:
            written.append(result)
            continue
        file_name = files[result.record.name]
        write_owned(inside(folder, file_name), store.dumps(result.snapshot), marker=SNAPSHOT_MARKER)
        record = NodeRecord(
            name=result.record.name,
            status="ok",
            file=file_name,
            fingerprint=result.snapshot.fingerprint,
            seconds=result.record.seconds,
        )
        written.append(NodeResult(record, result.snapshot))
    index = FleetIndex(
        collected_at=collected_at,
        transport=transport.name,
        command=transport.describe(argv),
        nodes=tuple(result.record for result in written),
    )
    write_index(folder, index)
    return index, written


def _prepare(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise BadInput(f"{folder}: exists and is not a folder")
    # The output folder itself is made, never the folders above it: a typo must not create a tree.
    if not folder.parent.is_dir():
        raise BadInput(f"{folder}: the folder {folder.parent} does not exist (create it first)")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as err:
        raise BadInput(f"{folder}: cannot create the folder: {err.strerror or err}") from err
    from envsnap.snapshot.files import check_writable

    check_writable(folder / ".envsnap-fleet-check")


def _dedupe(results: list[NodeResult]) -> list[NodeResult]:
    """A node name reported twice (a node printing another's name under Slurm) keeps its first result."""
    seen: dict[str, int] = {}
    kept = []
    for result in results:
        name = result.record.name
        if name in seen:
            seen[name] += 1
            record = NodeRecord(
                name=f"{name}#{seen[name]}",
                status="probe-failed",
                reason="another task reported the same node name; its output was not used",
            )
            kept.append(NodeResult(record))
            continue
        seen[name] = 1
        kept.append(result)
    return kept


def classify(output: NodeOutput, *, anonymize: bool = False) -> NodeResult:
    """Turn what one node sent back into a snapshot or a failure with a one-line reason."""
    from envsnap.fleet.nodes import check_name

    try:
        name = check_name(output.node, "node")
    except BadInput:
        from envsnap.fleet.nodes import file_stem

        name = file_stem(output.node)  # a node that printed a hostile name is still reported
        return NodeResult(_failed(name, output, "probe-failed", "the node reported an invalid node name"))
    if output.unreachable:
        return NodeResult(_failed(name, output, "unreachable", _last_line(output) or "could not connect"))
    if output.timed_out:
        return NodeResult(_failed(name, output, "timed-out", "no complete answer before the timeout"))
    if output.stdout_truncated:
        limit = MAX_STDOUT_BYTES // (1024 * 1024)
        return NodeResult(_failed(name, output, "probe-failed", f"output larger than {limit} MB; not read"))
    said = _last_line(output)
    if output.returncode == 127 or (output.returncode not in (0, None) and _MISSING.search(said or "")):
        return NodeResult(_failed(name, output, "envsnap-missing", said or "command not found (exit 127)"))
    if output.returncode != 0:
        reason = said or f"exit status {output.returncode}"
        return NodeResult(_failed(name, output, "probe-failed", reason))
    try:
        snapshot = parse_snapshot(output.stdout, name, anonymize=anonymize)
    except BadInput as err:
        return NodeResult(_failed(name, output, "probe-failed", f"not a snapshot: {_short(str(err))}"))
    record = NodeRecord(name=name, status="ok", fingerprint=snapshot.fingerprint, seconds=_round(output))
    return NodeResult(record, snapshot)


def parse_snapshot(data: bytes, node: str, *, anonymize: bool = False) -> Snapshot:
    """A node's standard output as a checked snapshot (redacted, fingerprint recomputed).

    Raises:
        BadInput: binary, not YAML, anchors/aliases/tags, or not a valid snapshot.
    """
    from envsnap.snapshot import files, store
    from envsnap.snapshot.finalize import checked
    from envsnap.snapshot.redact import anonymize as mask

    name = f"{node} (output)"
    snapshot = store.loads(files.decode_text(data, name), name)
    if anonymize:
        snapshot = mask(snapshot)
    return checked(snapshot)[0]


def _failed(name: str, output: NodeOutput, status: Status, reason: str) -> NodeRecord:
    return NodeRecord(name=name, status=status, reason=_short(reason), seconds=_round(output))


def _round(output: NodeOutput) -> float | None:
    return None if output.seconds is None else round(output.seconds, 2)


def _last_line(output: NodeOutput) -> str | None:
    """The last non-empty line of stderr, else the transport's own note about the node."""
    text = output.stderr.decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines:
        return lines[-1]
    return output.notes[-1] if output.notes else None


def _short(text: str) -> str:
    """One line, secrets redacted, at most ``MAX_REASON_CHARS`` (renderers escape control characters)."""
    from envsnap.snapshot.redact import redact_text

    line = " ".join(redact_text(text).split())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"
