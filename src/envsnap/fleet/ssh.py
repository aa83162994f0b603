"""The SSH transport: ClusterShell's task engine runs the command on every node over OpenSSH.

ClusterShell (the library behind ``clush``) starts the system ``ssh`` per node, at most ``fanout``
at a time, each with its own timeout, so the user's ``~/.ssh/config`` (aliases, jump hosts, keys,
``ControlMaster``) applies as it does for their own ``ssh``. envsnap never handles a password:
ClusterShell adds ``-oBatchMode=yes`` (keys or an agent only; a host that wants a password fails
at once as unreachable instead of prompting), and ``-oForwardAgent=no``.

ClusterShell would keep every line of every node in memory (its message trees); they are turned
off and ``_Collector`` keeps each node's output itself, capped (transport.OutputBuffer). A node
that goes over the cap is aborted: there is no snapshot in an endless stream.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence
from typing import Any

from envsnap.fleet.transport import (
    MAX_STDERR_BYTES,
    MAX_STDOUT_BYTES,
    NodeOutput,
    OutputBuffer,
    ProgressCallback,
)

SSH_UNREACHABLE = 255
"""``ssh`` exits 255 when it could not connect or authenticate (ssh(1), EXIT STATUS)."""


class SshTransport:
    """Run a command on named hosts through ClusterShell's ssh worker."""

    name = "ssh"

    def __init__(
        self,
        nodes: Sequence[str],
        *,
        timeout_s: float,
        fanout: int = 64,
        ssh_config: str | None = None,
        connect_timeout_s: float | None = None,
    ) -> None:
        """Args:
        nodes: checked node names (nodes.check_name): ssh aliases or host names.
        timeout_s: per node, from the start of its ssh to the end of its command.
        fanout: at most this many ssh processes at once.
        ssh_config: an ssh_config file to use instead of ``~/.ssh/config`` (``ssh -F``).
        connect_timeout_s: ssh's ``ConnectTimeout`` (default: the smaller of 10 s and the timeout).
        """
        self.nodes = list(nodes)
        self.timeout_s = timeout_s
        self.fanout = fanout
        self.ssh_config = ssh_config
        self.connect_timeout_s = connect_timeout_s or min(10.0, timeout_s)

    def describe(self, command: Sequence[str]) -> str:
        config = f" -F {shlex.quote(self.ssh_config)}" if self.ssh_config else ""
        return f"ssh{config} -oBatchMode=yes NODE {shlex.join(command)}"

    def run(self, command: Sequence[str], progress: ProgressCallback | None = None) -> list[NodeOutput]:
        from ClusterShell.Task import task_self

        task = task_self()
        task.set_info("fanout", max(1, self.fanout))
        task.set_info("connect_timeout", max(1, int(self.connect_timeout_s)))
        task.set_info("ssh_options", f"-F {shlex.quote(self.ssh_config)}" if self.ssh_config else "")
        task.set_default("stdout_msgtree", False)  # _Collector keeps (capped) output itself
        task.set_default("stderr_msgtree", False)
        remote = shlex.join(command)
        collectors = {}
        for node in self.nodes:
            handler = _Collector(node, progress)
            collectors[node] = handler
            # One worker per node: a node that floods its output can be aborted alone.
            task.shell(remote, nodes=node, handler=handler, timeout=self.timeout_s, stderr=True, stdin=False)
        task.resume()
        return [collectors[node].result() for node in self.nodes]


def _event_handler_base() -> type[Any]:
    from ClusterShell.Event import EventHandler

    return EventHandler  # type: ignore[no-any-return]


class _Collector(_event_handler_base()):  # type: ignore[misc]
    """Keeps one node's output and outcome as ClusterShell reports them."""

    def __init__(self, node: str, progress: ProgressCallback | None) -> None:
        super().__init__()
        self.node = node
        self.progress = progress
        self.stdout = OutputBuffer(MAX_STDOUT_BYTES)
        self.stderr = OutputBuffer(MAX_STDERR_BYTES, keep_end=True)
        self.returncode: int | None = None
        self.timed_out = False
        self.started: float | None = None
        self.ended: float | None = None

    def ev_pickup(self, worker: Any, node: str) -> None:
        self.started = time.monotonic()
        if self.progress is not None:
            self.progress(self.node, "started")

    def ev_read(self, worker: Any, node: str, sname: str, msg: bytes | str) -> None:
        data = (msg if isinstance(msg, bytes) else msg.encode("utf-8", "surrogateescape")) + b"\n"
        if sname == "stderr":
            self.stderr.add(data)
            return
        self.stdout.add(data)
        if self.stdout.truncated:
            worker.abort()  # over the cap: nothing more from this node is worth reading

    def ev_hup(self, worker: Any, node: str, rc: int | None) -> None:
        self.returncode = rc

    def ev_close(self, worker: Any, timedout: bool) -> None:
        self.timed_out = bool(timedout)
        self.ended = time.monotonic()
        if self.progress is not None:
            self.progress(self.node, "done" if self.returncode == 0 and not self.timed_out else "failed")

    def result(self) -> NodeOutput:
        unreachable = self.returncode == SSH_UNREACHABLE
        seconds = None if self.started is None or self.ended is None else self.ended - self.started
        return NodeOutput(
            node=self.node,
            stdout=self.stdout.value(),
            stderr=self.stderr.value(),
            returncode=None if unreachable or self.timed_out else self.returncode,
            timed_out=self.timed_out,
            unreachable=unreachable,
            stdout_truncated=self.stdout.truncated,
            seconds=seconds,
        )
