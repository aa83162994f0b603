"""Node names: where they come from (node sets, hosts files, node output) and where they may go.

A node name reaches two dangerous places. It becomes an argument of ``ssh`` (a name starting with
``-`` would be read as an option: ``-oProxyCommand=...`` runs a local command), and it becomes a
file name in the output folder (``../../etc/cron.d/x`` would write outside it). Names from the
user's node set, from a hosts file and, above all, from what a node prints are therefore checked
here once: ``check_name`` refuses anything but a plain host name, and ``file_stem`` maps any name
to a file name that cannot leave the folder, whatever ``check_name`` let through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from envsnap.errors import BadInput

MAX_NAME_CHARS = 253
"""The longest DNS name; ssh aliases and Slurm node names are far shorter."""
MAX_HOSTS_FILE_BYTES = 1024 * 1024
INDEX_NAME = "fleet.yaml"
MAX_NODES = 100_000
"""Most nodes one collection reaches (node set or hosts file, all lines together); the largest
clusters have a few tens of thousands. A 17-byte ``gpu[1-50000000]`` used 3.6 GB in ClusterShell;
a node set is counted before it is expanded and refused past this."""

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@:%+-]*")
"""A host name, ssh alias (``user@host`` too) or Slurm node name; never a leading ``-`` or ``.``."""
_UNSAFE_IN_FILE = re.compile(r"[^A-Za-z0-9_.-]+")


def check_name(name: str, where: str) -> str:
    """Return ``name`` if it is a plain node name, else refuse it (one line naming ``where``).

    Raises:
        BadInput: empty, too long, starting with ``-`` or ``.``, or holding anything but letters,
            digits and ``_ . @ : % + -`` (no spaces, slashes, quotes or control characters).
    """
    if not name or len(name) > MAX_NAME_CHARS or _NAME.fullmatch(name) is None:
        from envsnap.snapshot.redact import redact_text

        shown = redact_text(name[:80]).encode("unicode_escape").decode("ascii")
        raise BadInput(f"{where}: not a valid node name: {shown!r}")
    return name


def expand(nodeset: str) -> list[str]:
    """Node names of a ClusterShell node set (``gpu[01-64],login1``), each checked.

    Raises:
        BadInput: the node set does not parse, or a node name is not a plain name.
    """
    from ClusterShell.NodeSet import NodeSet, NodeSetException

    if count_upper_bound(nodeset) > MAX_NODES:
        raise BadInput(f"--ssh {nodeset[:80]!r}: expands to more than {MAX_NODES:,} nodes; refusing it")
    try:
        names = list(NodeSet(nodeset, resolver=_NO_GROUPS))
    except (NodeSetException, ValueError) as err:
        raise BadInput(f"--ssh {nodeset!r}: not a node set: {err}") from err
    if not names:
        raise BadInput(f"--ssh {nodeset!r}: no nodes")
    return [check_name(name, "--ssh") for name in names]


_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_NUMBER = re.compile(r"\d+")


def count_upper_bound(nodeset: str) -> int:
    """At least as many nodes as ``nodeset`` expands to, counted without expanding it (linear).

    Each comma-separated term counts the product of its bracket ranges (``n[1-4]-ib[0-1]``: 8);
    a range counts from its first number to its last (steps and ``!``/``&``/``^`` only remove
    nodes, so the bound holds). Commas inside brackets separate ranges, not terms.
    """
    total = 0
    for term in _top_level_terms(nodeset):
        product = 1
        for body in _BRACKETS.findall(term):
            product *= sum(_range_size(part) for part in body.split(",")) or 1
        total += product
    return total


def _top_level_terms(nodeset: str) -> list[str]:
    terms, depth, start = [], 0, 0
    for i, char in enumerate(nodeset):
        depth += (char == "[") - (char == "]")
        if char in ",!&^" and depth == 0:
            terms.append(nodeset[start:i])
            start = i + 1
    terms.append(nodeset[start:])
    return terms


def _range_size(part: str) -> int:
    numbers = [int(n) for n in _NUMBER.findall(part.split("/", 1)[0])]
    if len(numbers) < 2:
        return 1
    signs = part.replace(" ", "")
    first = -numbers[0] if signs.startswith("-") else numbers[0]
    last = -numbers[-1] if "--" in signs else numbers[-1]
    return abs(last - first) + 1


_NO_GROUPS = None
"""Leave ClusterShell's default group resolver alone (``@group`` names work as in clush)."""


def read_hosts_file(path: Path) -> list[str]:
    """Node names from a file: one name or node set per line, ``#`` starts a comment.

    Raises:
        BadInput: unreadable, too large, not text, or a line that is not a node name or node set.
    """
    from envsnap.snapshot.files import decode_text, read_bytes_capped

    name = str(path)
    text = decode_text(read_bytes_capped(path, name, MAX_HOSTS_FILE_BYTES), name)
    lines = [(n, raw.split("#", 1)[0].strip()) for n, raw in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line]
    counted = 0
    for number, line in lines:  # the whole file is counted before any line is expanded
        counted += count_upper_bound(line)
        if counted > MAX_NODES:
            raise BadInput(f"{name}:{number}: the file expands to more than {MAX_NODES:,} nodes; refusing it")
    nodes: list[str] = []
    for number, line in lines:
        try:
            nodes.extend(expand(line))
        except BadInput as err:
            raise BadInput(f"{name}:{number}: {str(err).split(': ', 1)[1]}") from err
    if not nodes:
        raise BadInput(f"{name}: no node names in the file")
    return unique(nodes)


def unique(names: Iterable[str]) -> list[str]:
    """Names in first-seen order, each once."""
    return list(dict.fromkeys(names))


def file_stem(name: str) -> str:
    """A file name stem for a node: only ``[A-Za-z0-9_.-]``, no leading dot, at most 100 chars.

    Never a path: separators and ``..`` cannot survive, and the index's own name is avoided.
    """
    stem = _UNSAFE_IN_FILE.sub("_", name).lstrip(".")[:100] or "node"
    return f"{stem}_" if f"{stem}.yaml" == INDEX_NAME else stem


def node_files(names: Iterable[str]) -> dict[str, str]:
    """A distinct ``<stem>.yaml`` per node (``gpu_1.yaml``, ``gpu_1-2.yaml`` when two names collide)."""
    taken: set[str] = set()
    files: dict[str, str] = {}
    for name in names:
        stem = file_stem(name)
        candidate, n = f"{stem}.yaml", 1
        while candidate.lower() in taken:  # case-insensitive file systems too
            n += 1
            candidate = f"{stem}-{n}.yaml"
        taken.add(candidate.lower())
        files[name] = candidate
    return files


def inside(folder: Path, file_name: str) -> Path:
    """``folder / file_name``, refusing any name that is not a plain file name inside ``folder``.

    Raises:
        BadInput: the name holds a separator, is ``.``/``..``, or resolves outside the folder.
    """
    if (
        not file_name
        or "/" in file_name
        or "\\" in file_name
        or file_name in (".", "..")
        or "\x00" in file_name
    ):
        raise BadInput(f"{folder}: refusing node file name {file_name!r} (not a plain file name)")
    path = folder / file_name
    if path.resolve().parent != folder.resolve():
        raise BadInput(f"{folder}: refusing node file name {file_name!r} (outside the folder)")
    return path
