"""Real cluster engines for the fleet tests: an OpenSSH server and a three-node Slurm cluster on localhost.

Nothing here fakes a transport. ``Sshd`` runs Debian's ``/usr/sbin/sshd`` on a free loopback port
with a generated host key and user key; the "hosts" are aliases of 127.0.0.1 in a generated
ssh_config. ``SlurmCluster`` runs ``munged``, ``slurmctld`` and three ``slurmd -N nX`` (the
multiple-slurmd build Debian ships) with everything, SLURM_CONF included, in a temp folder.
Both are torn down by the pids they wrote, never by process name.

They need root (sshd's privilege separation, SlurmUser=root) and the Debian packages
``openssh-server``, ``slurm-wlm`` and ``munge`` (CI installs them: .ci/run); ``missing()`` says
which is lacking so the tests can skip saying exactly why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

SSH_BINARIES = ("/usr/sbin/sshd", "ssh", "ssh-keygen")
SLURM_BINARIES = ("munged", "slurmctld", "slurmd", "srun", "sinfo")


def missing(binaries: tuple[str, ...]) -> str | None:
    """Why these engines can't run here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root (sshd privilege separation, SlurmUser=root); CI runs as root"
    absent = [b for b in binaries if shutil.which(b) is None and not Path(b).exists()]
    if absent:
        return f"not installed: {', '.join(absent)} (apt-get install -y openssh-server slurm-wlm munge)"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released: connections are refused)."""
    return free_port()


def kill_pidfile(path: Path, sig: int = signal.SIGTERM) -> None:
    """Signal the process whose pid the file holds (if it is still there)."""
    try:
        pid = int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def write_tiny_distribution(folder: Path, name: str, version: str) -> Path:
    """A real (metadata-only) installed distribution: importlib.metadata finds it on sys.path."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
    return folder


def write_hang_site(folder: Path, pid_dir: Path) -> Path:
    """A sitecustomize that records its pid and hangs: Python never gets to envsnap (a stuck node)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        "import os, time\n"
        f"open(os.path.join({str(pid_dir)!r}, f'hang-{{os.getpid()}}.pid'), 'w').write(str(os.getpid()))\n"
        "time.sleep(120)\n"
    )
    return folder


@dataclass
class Sshd:
    """An OpenSSH server on 127.0.0.1 and an ssh_config whose aliases all point at it."""

    root: Path
    port: int = 0
    config: Path = field(init=False)
    pid_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.config = self.root / "ssh_config"
        self.pid_dir = self.root / "pids"

    def start(self, aliases: dict[str, list[str]]) -> None:
        """Generate keys, start sshd, and write the ssh_config.

        Args:
            aliases: alias -> extra ssh_config lines for it (``SetEnv X=1``, ``Port 1``).
        """
        self.pid_dir.mkdir(parents=True, exist_ok=True)
        for key in ("host_key", "user_key"):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.root / key)], check=True
            )
        (self.root / "authorized_keys").write_text((self.root / "user_key.pub").read_text())
        self.port = free_port()
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation folder
        (self.root / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.root / 'host_key'}\n"
            f"PidFile {self.root / 'sshd.pid'}\nAuthorizedKeysFile {self.root / 'authorized_keys'}\n"
            "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PermitRootLogin prohibit-password\nAcceptEnv *\nMaxStartups 100:30:200\nMaxSessions 100\n"
        )
        host_key = (self.root / "host_key.pub").read_text().split()
        (self.root / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key[0]} {host_key[1]}\n")
        lines = []
        for alias, extra in aliases.items():
            lines += [f"Host {alias}", "  HostName 127.0.0.1", *(f"  {line}" for line in extra)]
        lines += [
            "Host *",
            f"  Port {self.port}",
            "  User root",
            f"  IdentityFile {self.root / 'user_key'}",
            "  IdentitiesOnly yes",
            "  StrictHostKeyChecking yes",
            f"  UserKnownHostsFile {self.root / 'known_hosts'}",
            "  LogLevel ERROR",
        ]
        self.config.write_text("\n".join(lines) + "\n")
        subprocess.run(
            ["/usr/sbin/sshd", "-f", str(self.root / "sshd_config"), "-E", str(self.root / "sshd.log")],
            check=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"sshd did not start: {(self.root / 'sshd.log').read_text()[-500:]}")

    def stop(self) -> None:
        kill_pidfile(self.root / "sshd.pid")
        for pid_file in self.pid_dir.glob("*.pid"):  # commands left hanging after their ssh was killed
            kill_pidfile(pid_file, signal.SIGKILL)


@dataclass
class SlurmCluster:
    """munged + slurmctld + slurmd n1..n3 on localhost, configured in ``root``."""

    root: Path
    nodes: tuple[str, ...] = ("n1", "n2", "n3")
    env: dict[str, str] = field(default_factory=dict)

    def start(self) -> None:
        root = self.root
        for sub in ("munge", "run", "state", "spool", "log"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "munge").chmod(0o700)
        (root / "run").chmod(0o755)
        key = root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        socket_path = root / "run" / "munge.sock"
        subprocess.run(
            ["munged", "--force", f"--socket={socket_path}", f"--key-file={key}",
             f"--log-file={root / 'log' / 'munged.log'}", f"--pid-file={root / 'run' / 'munged.pid'}",
             f"--seed-file={root / 'munge' / 'seed'}"],
            check=True,
        )  # fmt: skip
        ctld_port, first = free_port(), 17001
        host = socket.gethostname()
        conf = root / "slurm.conf"
        conf.write_text(
            "\n".join(
                [
                    "ClusterName=envsnaptest",
                    f"SlurmctldHost={host}(127.0.0.1)",
                    f"SlurmctldPort={ctld_port}",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={socket_path}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    f"StateSaveLocation={root / 'state'}",
                    f"SlurmdSpoolDir={root / 'spool'}/%n",
                    f"SlurmctldPidFile={root / 'run' / 'slurmctld.pid'}",
                    f"SlurmdPidFile={root / 'run'}/slurmd-%n.pid",
                    f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
                    f"SlurmdLogFile={root / 'log'}/slurmd-%n.log",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "SchedulerType=sched/builtin",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "SwitchType=switch/none",
                    "JobCompType=jobcomp/none",
                    "AccountingStorageType=accounting_storage/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "InactiveLimit=0",
                    "KillWait=5",
                    "MinJobAge=5",
                    f"NodeName=n[1-3] NodeHostname={host} NodeAddr=127.0.0.1 Port={first}-{first + 2} "
                    "CPUs=1 State=UNKNOWN",
                    "PartitionName=debug Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP",
                ]
            )
            + "\n"
        )
        self.env = {**os.environ, "SLURM_CONF": str(conf)}
        self.env.pop("SLURM_JOB_NODELIST", None)
        subprocess.run(["slurmctld", "-i"], env=self.env, check=True)
        for node in self.nodes:
            subprocess.run(["slurmd", "-N", node], env=self.env, check=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done = subprocess.run(
                ["sinfo", "--noheader", "--responding", "--Node", "--format=%N %t"],
                env=self.env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            idle = [line for line in done.stdout.splitlines() if line.split()[-1:] == ["idle"]]
            if len(idle) == len(self.nodes):
                return
            time.sleep(0.5)
        raise RuntimeError(f"slurm did not come up: {(root / 'log' / 'slurmctld.log').read_text()[-800:]}")

    def stop(self) -> None:
        run = self.root / "run"
        for node in self.nodes:
            kill_pidfile(run / f"slurmd-{node}.pid")
        kill_pidfile(run / "slurmctld.pid")
        kill_pidfile(run / "munged.pid")


def node_wrapper(path: Path, per_node: dict[str, dict[str, str]]) -> Path:
    """An interpreter wrapper for ``--python``: per-node environment chosen from SLURMD_NODENAME.

    Real clusters differ this way: a module loaded on some nodes, a variable in one node's profile.
    """
    cases = "".join(
        f"  {node})" + "".join(f" export {k}='{v}';" for k, v in env.items()) + " ;;\n"
        for node, env in per_node.items()
    )
    path.write_text(f'#!/bin/sh\ncase "$SLURMD_NODENAME" in\n{cases}esac\nexec {sys.executable} "$@"\n')
    path.chmod(0o755)
    return path
