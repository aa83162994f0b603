"""The Slurm transport: one ``srun`` step, one task per node, output told apart by ``--label``.

``srun --ntasks-per-node=1 --label`` runs the command once on every node of the step and prefixes
each output line with the task number (``2: ...``). A task number is not a node name, so the
command runs inside a small ``sh`` wrapper that first prints ``envsnap-node <SLURMD_NODENAME>`` and
last ``envsnap-exit <status>``: every task names its node and its own exit status, which ``srun``
alone reports only for failures. A task that never printed its trailer did not finish: it timed
out, or its node failed (``srun: error: n2: task 1: ...`` lines are kept as that node's notes).

Which nodes: inside an allocation (``SLURM_JOB_NODELIST`` set) every node of it; otherwise the
caller's ``srun`` arguments (``-N 4 -p gpu``, ``-w gpu[01-08]``), or, when they name no nodes,
every node ``sinfo`` lists as responding. The timeout is per node in spirit but one deadline for
the whole step (all tasks start together); at the deadline the step is cancelled (SIGTERM to
``srun``, which cancels it, then SIGKILL).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from envsnap.errors import BadInput
from envsnap.fleet.transport import (
    MAX_STDERR_BYTES,
    MAX_STDOUT_BYTES,
    NodeOutput,
    OutputBuffer,
    ProgressCallback,
)

READ_CHUNK_BYTES = 64 * 1024
"""The most of srun's output read at once: a line longer than this arrives in pieces."""
NODE_MARK = b"envsnap-node "
EXIT_MARK = b"envsnap-exit "
_LABEL = re.compile(rb"^ *(\d{1,7}): ?")
_SRUN_ERROR = re.compile(rb"^srun: error: (?P<node>[^:\s]+): task (?P<task>\d+): (?P<what>.*)$")
_NODE_OPTIONS = ("-N", "--nodes", "-w", "--nodelist", "-F", "--nodefile")
WRAPPER = (
    'printf "envsnap-node %s\\n" "${SLURMD_NODENAME:-$(hostname)}"; "$@"; printf "\\nenvsnap-exit %s\\n" "$?"'
)
"""Runs on each node: name the node, run the command, report its exit status."""


class SlurmTransport:
    """Run a command once per node of a Slurm step."""

    name = "slurm"

    def __init__(
        self,
        srun_args: Sequence[str] = (),
        *,
        timeout_s: float,
        environ: Mapping[str, str] | None = None,
        srun: str = "srun",
        sinfo: str = "sinfo",
    ) -> None:
        self.srun_args = list(srun_args)
        self.timeout_s = timeout_s
        self.environ = dict(os.environ if environ is None else environ)
        self.srun = srun
        self.sinfo = sinfo

    def step_args(self) -> list[str]:
        """The ``srun`` options that choose the nodes, plus one task per node and labels."""
        args = list(self.srun_args)
        if not any(_names_nodes(arg) for arg in args):
            nodelist = self.environ.get("SLURM_JOB_NODELIST")
            args += [f"--nodelist={nodelist}" if nodelist else f"--nodelist={self._responding_nodes()}"]
            args += [f"--nodes={_count(args[-1].split('=', 1)[1])}"]
        return [*args, "--ntasks-per-node=1", "--label", "--kill-on-bad-exit=0"]

    def describe(self, command: Sequence[str]) -> str:
        return shlex.join([self.srun, *self.srun_args, "--ntasks-per-node=1", "--label", *command])

    def _responding_nodes(self) -> str:
        try:
            done = subprocess.run(
                [self.sinfo, "--noheader", "--responding", "--Node", "--format=%N"],
                capture_output=True,
                timeout=30,
                env=self.environ,
                check=False,
            )
        except FileNotFoundError as err:
            raise BadInput(f"--slurm: {self.sinfo} not found: is this a Slurm login node?") from err
        except subprocess.TimeoutExpired as err:
            raise BadInput("--slurm: sinfo did not answer within 30 s (is slurmctld up?)") from err
        names = list(dict.fromkeys(done.stdout.decode("utf-8", "replace").split()))
        if done.returncode != 0 or not names:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            reason = message[-1] if message else "no responding nodes"
            raise BadInput(f"--slurm: cannot list the nodes ({reason}); pass srun options such as -N 4")
        return ",".join(names)

    def run(self, command: Sequence[str], progress: ProgressCallback | None = None) -> list[NodeOutput]:
        argv = [self.srun, *self.step_args(), "sh", "-c", WRAPPER, "envsnap-node", *command]
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.environ,
                start_new_session=True,  # our own process group: cancelled as a whole at the deadline
            )
        except FileNotFoundError as err:
            raise BadInput(f"--slurm: {self.srun} not found: is this a Slurm login node?") from err
        tasks = _Tasks(progress)
        assert proc.stdout is not None
        assert proc.stderr is not None
        readers = [
            threading.Thread(target=tasks.read, args=(proc.stdout, "stdout"), daemon=True),
            threading.Thread(target=tasks.read, args=(proc.stderr, "stderr"), daemon=True),
        ]
        for reader in readers:
            reader.start()
        cancelled_at: float | None = None
        try:
            proc.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            cancelled_at = time.monotonic()
            _cancel(proc)
        for reader in readers:
            reader.join(timeout=10)
        return tasks.results(time.monotonic() - started, cancelled_at)


def _names_nodes(arg: str) -> bool:
    """Whether an srun argument chooses nodes (``-N4``, ``--nodes=4``, ``-w n[1-3]``...)."""
    for option in _NODE_OPTIONS:
        if arg == option or arg.startswith(option + "="):
            return True
        if len(option) == 2 and arg.startswith(option):  # short option glued to its value: -N4
            return True
    return False


def _count(nodelist: str) -> int:
    from ClusterShell.NodeSet import NodeSet

    from envsnap.fleet.nodes import MAX_NODES, count_upper_bound

    if count_upper_bound(nodelist) > MAX_NODES:  # counted before ClusterShell expands it
        raise BadInput(f"--slurm: the node list expands to more than {MAX_NODES:,} nodes; refusing it")
    return len(NodeSet(nodelist))


def _cancel(proc: subprocess.Popen[bytes]) -> None:
    """Cancel the step: srun forwards SIGTERM to the tasks; then make sure it is gone."""
    for sig, wait_s in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


class _Task:
    def __init__(self) -> None:
        self.node: str | None = None
        self.stdout = OutputBuffer(MAX_STDOUT_BYTES)
        self.stderr = OutputBuffer(MAX_STDERR_BYTES, keep_end=True)
        self.returncode: int | None = None
        self.notes: list[str] = []
        self.started: float | None = None
        self.ended: float | None = None


class _Tasks:
    """Splits srun's labelled output into tasks; reads stdout and stderr from two threads."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.tasks: dict[int, _Task] = {}
        self.lock = threading.Lock()
        self.unlabelled = OutputBuffer(MAX_STDERR_BYTES, keep_end=True)
        self.open_line: dict[str, OutputBuffer | None] = {}
        """Per stream: where the rest of a line cut at READ_CHUNK_BYTES goes (None: dropped)."""

    def read(self, stream: IO[bytes], name: str) -> None:
        """Read ``stream`` in pieces of at most READ_CHUNK_BYTES, never a whole line at once.

        One 600 MB line without a newline was held whole (1.86 GB) before the per-node cap cut it.
        The rest of a cut line belongs to the same task and stream as its start: a ``3: `` at the
        start of a later piece is data, not a label.
        """
        continuing = False
        while chunk := stream.readline(READ_CHUNK_BYTES):
            with self.lock:
                if continuing:
                    target = self.open_line.get(name)
                    if target is not None:
                        target.add(chunk)
                else:
                    self.open_line[name] = None
                    self._line(chunk, name)
            continuing = not chunk.endswith(b"\n")

    def _line(self, line: bytes, stream: str) -> None:
        label = _LABEL.match(line)
        if label is None:
            failed = _SRUN_ERROR.match(line.rstrip(b"\n")) if stream == "stderr" else None
            if failed is not None:
                task = self.tasks.setdefault(int(failed["task"]), _Task())
                task.notes.append(line.decode("utf-8", "replace").strip())
                task.node = task.node or failed["node"].decode("utf-8", "replace")
            else:
                self.unlabelled.add(line)
                self.open_line[stream] = self.unlabelled
            return
        task = self.tasks.setdefault(int(label[1]), _Task())
        body = line[label.end() :]
        if stream == "stderr":
            task.stderr.add(body)
            self.open_line[stream] = task.stderr
        elif task.node is None and body.startswith(NODE_MARK):
            task.node = body[len(NODE_MARK) :].strip().decode("utf-8", "replace")
            task.started = time.monotonic()
            if self.progress is not None:
                self.progress(task.node, "started")
        elif body.startswith(EXIT_MARK) and body[len(EXIT_MARK) :].strip().isdigit():
            task.returncode = int(body[len(EXIT_MARK) :].strip())
            task.ended = time.monotonic()
            if self.progress is not None and task.node is not None:
                self.progress(task.node, "done" if task.returncode == 0 else "failed")
        else:
            task.stdout.add(body)
            self.open_line[stream] = task.stdout

    def results(self, seconds: float, cancelled_at: float | None) -> list[NodeOutput]:
        """One output per task; ``cancelled_at``: when the step was cancelled at its deadline."""
        timed_out = cancelled_at is not None
        outputs = []
        for number, task in sorted(self.tasks.items()):
            stdout = task.stdout.value()
            if task.returncode is not None and stdout.endswith(b"\n\n"):
                stdout = stdout[:-1]  # the wrapper's newline before the trailer
            # A task whose command the cancellation killed still reports its exit (137, 143) when
            # its wrapper outlives the command by a moment: it ended because of the deadline.
            killed = cancelled_at is not None and task.ended is not None and task.ended >= cancelled_at
            unfinished = task.returncode is None or killed
            outputs.append(
                NodeOutput(
                    node=task.node or f"task-{number}",
                    stdout=stdout,
                    stderr=task.stderr.value(),
                    returncode=task.returncode,
                    timed_out=unfinished and timed_out,
                    unreachable=unfinished and not timed_out and not stdout,
                    stdout_truncated=task.stdout.truncated,
                    seconds=task.ended - task.started if task.started and task.ended else seconds,
                    notes=tuple(task.notes),
                )
            )
        if not outputs:
            said = self.unlabelled.value().decode("utf-8", "replace").strip().splitlines()
            reason = said[-1] if said else "srun produced no output"
            raise BadInput(f"--slurm: the step did not run: {reason}")
        return outputs
