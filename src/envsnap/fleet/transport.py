"""The one small interface every way of reaching nodes implements, and what a node sends back.

A transport runs one shell command on many nodes and returns, per node, the raw result:
what came out (capped), how it ended (exit status, timeout, never started) and how long it took.
It knows nothing about snapshots: collect.py turns raw results into snapshots or failures.
Today there are two, both driving engines clusters already run: Slurm (``srun --label``,
slurm.py) and SSH (ClusterShell, ssh.py). A Kubernetes transport (``kubectl exec`` into each pod of
a DaemonSet) or a Ray one (a task pinned to each node) would implement the same ``Transport``.

Node output is hostile: a node may print gigabytes, binary data or terminal escapes. Every
transport keeps at most ``MAX_STDOUT_BYTES`` of standard output and the last ``MAX_STDERR_BYTES``
of standard error per node (``OutputBuffer``), and says when it dropped anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

MAX_STDOUT_BYTES = 16 * 1024 * 1024
"""Standard output kept per node: a real snapshot with thousands of packages is a few MB."""
MAX_STDERR_BYTES = 16 * 1024
"""Standard error kept per node (its end: the error message is the last thing a program says)."""

NodeState = Literal["started", "done", "failed"]
ProgressCallback = Callable[[str, NodeState], None]
"""Called with a node name when its command starts, and when it ended with status 0 (done) or not."""


class OutputBuffer:
    """Bytes of one stream of one node, capped: the start of stdout, the end of stderr."""

    def __init__(self, cap: int, *, keep_end: bool = False) -> None:
        self._cap = cap
        self._keep_end = keep_end
        self._chunks: list[bytes] = []
        self._size = 0
        self.truncated = False
        """Whether anything was dropped to stay under the cap."""

    def add(self, data: bytes) -> None:
        """Append data (a line, with its newline restored by the caller, or a raw chunk)."""
        if self._keep_end:
            self._chunks.append(data)
            self._size += len(data)
            while self._size > self._cap and len(self._chunks) > 1:
                self._size -= len(self._chunks.pop(0))
                self.truncated = True
            if self._size > self._cap:
                self._chunks = [self._chunks[0][-self._cap :]]
                self._size = self._cap
                self.truncated = True
            return
        room = self._cap - self._size
        if room <= 0:
            self.truncated = self.truncated or bool(data)
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self._chunks.append(data)
        self._size += len(data)

    @property
    def full(self) -> bool:
        """Whether the cap has been reached (a transport may stop reading this node)."""
        return self._size >= self._cap

    def value(self) -> bytes:
        return b"".join(self._chunks)


@dataclass(frozen=True)
class NodeOutput:
    """What one node's command produced, before anyone tries to read it as a snapshot."""

    node: str
    stdout: bytes = b""
    stderr: bytes = b""
    returncode: int | None = None
    """Exit status of the command on the node; None when it never finished (timeout, no start)."""
    timed_out: bool = False
    unreachable: bool = False
    """The transport could not run the command there at all (connection refused, node down)."""
    stdout_truncated: bool = False
    seconds: float | None = None
    """Wall time from start to end, as the transport saw it."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """What the transport itself said about this node (``srun: error: n2: ...``)."""


class Transport(Protocol):
    """Runs one command on many nodes; each implementation drives one cluster engine."""

    name: str
    """Short name recorded in the fleet index (``ssh``, ``slurm``)."""

    def run(self, command: Sequence[str], progress: ProgressCallback | None = None) -> list[NodeOutput]:
        """Run ``command`` (an argv, quoted for the remote shell by the transport) on every node.

        Never raises for a node that fails: that node's ``NodeOutput`` says how. Raises
        ``BadInput`` only when the transport cannot start at all (``srun`` not installed).
        """
        ...

    def describe(self, command: Sequence[str]) -> str:
        """The command line as the user would type it, for the index and error messages."""
        ...
