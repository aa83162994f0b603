"""Write a rollback plan as requirements.txt, a conda environment.yml, or a POSIX shell script.

Everything written here was validated by rollback.plan (names, versions, URLs, revisions and
system versions are single safe tokens), and the script quotes every argument with
``shlex.quote`` anyway; the YAML goes through PyYAML's safe dumper. Free text (the snapshot's
label, the reasons of manual steps) only ever appears in comments, on one line, with terminal
control characters escaped (safe_text), so neither a requirements file nor a terminal showing
it can be steered by the snapshot. A plan whose snapshot does not know its package layer says
so at the top and pins nothing (the script refuses to run).

Also here: ``pip_commands``, what ``rollback --apply --dry-run`` prints.
"""

from __future__ import annotations

import shlex

import yaml
from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rollback.apply import ApplyPlan
from envsnap.rollback.plan import ManualPackage, Pin, RollbackPlan, pytorch_index
from envsnap.snapshot.safe_text import one_line, printable

FORMATS = ("requirements", "conda", "script")

_CONDA_NAMES = {"torch": "pytorch"}
"""conda package names that differ from the distribution name they install."""


def manual_text(item: ManualPackage) -> str:
    """``trainer 0.3.0: editable install from ...`` on one printable line (version may be unknown)."""
    return one_line(f"{item.name} {item.version or '(version unknown)'}: {item.why}")


def _header(plan: RollbackPlan, what: str) -> list[str]:
    fingerprint = f" ({one_line(plan.fingerprint)})" if plan.fingerprint else ""
    label = one_line(plan.label)
    lines = [f"# envsnap rollback {what}: restores the Python packages of {label}{fingerprint}"]
    if plan.packages_unknown:
        lines.append("#")
        lines.append(f"# The package layer is unknown in this snapshot: {one_line(plan.packages_unknown)}.")
        lines.append("# Nothing is pinned below: this file cannot restore the Python packages.")
    if plan.system:
        lines.append("#")
        lines.append("# Manual steps (layers pip cannot restore):")
        lines += [f"#   - {one_line(step.text)}" for step in plan.system]
    if plan.manual:
        lines.append("#")
        lines.append("# Not pinned (restore these by hand):")
        lines += [f"#   - {manual_text(m)}" for m in plan.manual]
    return lines


def requirements_txt(plan: RollbackPlan) -> str:
    """A requirements file with exact pins, dependencies first."""
    lines = _header(plan, "requirements")
    lines += [
        "#",
        "# Install:  python -m pip install -r THIS_FILE   (add --no-deps to install exactly these pins)",
        "# pip resolves the whole file at once, so line order does not matter to it; dependencies come",
        "# first anyway, for step-by-step --no-deps installs and for people reading the file.",
    ]
    lines += [f"--extra-index-url {url}" for url in plan.extra_index_urls]
    lines += [pin.requirement for pin in plan.pins]
    return "\n".join(lines) + "\n"


def conda_environment(plan: RollbackPlan) -> str:
    """An environment.yml: conda-installed packages in the conda section, the rest under pip."""
    conda: list[str] = [f"python={plan.python_version}"] if plan.python_version else []
    pins: list[Pin] = []
    pip_itself = "pip"  # conda installs pip itself (it runs the pip section); pinned when known
    for pin in plan.pins:
        name = canonicalize_name(pin.name)
        if name == "pip" and pin.kind == "index":
            pip_itself = f"pip={Version(pin.version).public}"
        elif pin.installer == "conda" and pin.kind == "index":
            conda.append(f"{_CONDA_NAMES.get(name, name)}={Version(pin.version).public}")
        elif name not in ("pip", "python"):
            pins.append(pin)
    indexes = sorted({index for pin in pins if (index := pytorch_index(pin)) is not None})
    pip = [f"--extra-index-url {url}" for url in indexes] + [pin.requirement for pin in pins]
    conda.append(pip_itself)
    dependencies: list[object] = [*conda, {"pip": pip}] if pip else list(conda)
    document = {"name": plan.env_name or "envsnap-restore", "dependencies": dependencies}
    lines = _header(plan, "environment")
    lines += [
        "#",
        "# Create:  conda env create -f THIS_FILE   (add the channels the original environment used)",
    ]
    if plan.env_kind != "conda":
        kind = plan.env_kind or "non-conda"
        lines.append(f"# Note: the snapshot is of a {kind} environment; every package is under pip.")
    body = yaml.safe_dump(document, sort_keys=False, default_flow_style=False, width=4096)
    return "\n".join(lines) + "\n" + body


def shell_script(plan: RollbackPlan) -> str:
    """A commented POSIX shell script that reinstalls the pins with the interpreter in $PYTHON."""
    # The snapshot's path, as the user named it, for the commands the script suggests: quoted for
    # the shell, and one printable line (it lands in a comment and in $SNAPSHOT, never run).
    snapshot = shlex.quote(one_line(plan.snapshot_path)) if plan.snapshot_path else "SNAPSHOT"
    lines = ["#!/bin/sh", *_header(plan, "script")]
    lines += [
        "#",
        "# Usage:  PYTHON=/path/to/env/bin/python sh THIS_FILE",
        "# Installs every pin with --no-deps (exact versions, no resolver surprises). To also remove",
        "# the distributions the snapshot lacks, run instead:",
        f"#   envsnap rollback {snapshot} --apply --python PATH",
        "set -eu",
        'PYTHON="${PYTHON:-python3}"',
        f"SNAPSHOT={snapshot}",
    ]
    if plan.packages_unknown:
        lines += [
            'echo "envsnap rollback: the snapshot does not know its Python packages; nothing to install" >&2',
            "exit 1",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f'echo "envsnap rollback: installing {len(plan.pins)} pinned distributions with $PYTHON" >&2',
    ]
    if plan.pins:
        args = ['"$PYTHON" -m pip install --no-deps --no-input']
        args += [f"--extra-index-url {shlex.quote(url)}" for url in plan.extra_index_urls]
        args.append("--")
        args += [shlex.quote(pin.requirement) for pin in plan.pins]
        lines.append(" \\\n    ".join(args))
    lines.append(
        'echo "done; compare with the snapshot: envsnap save --python \\"$PYTHON\\" -o after.yaml'
        ' && envsnap diff \\"$SNAPSHOT\\" after.yaml --only packages" >&2'
    )
    return "\n".join(lines) + "\n"


def render_plan(plan: RollbackPlan, fmt: str) -> str:
    """The plan in one of ``FORMATS``."""
    if fmt == "conda":
        return conda_environment(plan)
    if fmt == "script":
        return shell_script(plan)
    return requirements_txt(plan)


def pip_commands(prepared: ApplyPlan) -> str:
    """The pip commands ``--apply`` would run, one shell-quoted line each, in order."""
    return "".join(printable(shlex.join(argv), limit=None) + "\n" for argv in prepared.commands())
