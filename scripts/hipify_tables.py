"""Regenerate src/envsnap/audit/data/hipify.yaml from HIPIFY's public Markdown tables.

    # fetch the tables named in FAMILIES from https://github.com/ROCm/HIPIFY/tree/<commit>/docs/reference/tables
    python scripts/hipify_tables.py TABLES_DIR --commit <commit> -o src/envsnap/audit/data/hipify.yaml

Each table row is ``|`cudaName`|A|D|C|R|`hipName`|A|D|...|``: an empty HIP cell means HIPIFY has no HIP
equivalent (unsupported); a version in the HIP-side ``D`` column means HIP deprecated its equivalent.
Only function sections are read (data types, enums and graphics-interop sections are left out), and
rows that follow their base row (``cuMemAlloc_v2`` -> the HIP name of ``cuMemAlloc``) are folded, so
the file stays small; ``envsnap.audit.hipify.lookup`` unfolds them the same way.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEADER = Path(__file__).with_name("hipify_header.txt")
SOURCE = "https://github.com/ROCm/HIPIFY/tree/amd-staging/docs/reference/tables"

FAMILIES: dict[str, dict[str, Any]] = {
    "runtime": {
        "title": "CUDA Runtime API",
        "target": "HIP",
        "table": "CUDA_Runtime_API_functions_supported_by_HIP.md",
        "rename": ["cuda", "hip"],
        "variants": [],
    },
    "driver": {
        "title": "CUDA Driver API",
        "target": "HIP",
        "table": "CUDA_Driver_API_functions_supported_by_HIP.md",
        "rename": ["cu", "hip"],
        "variants": ["_v2"],
    },
    "cublas": {
        "title": "cuBLAS / cuBLASLt",
        "target": "hipBLAS / hipBLASLt",
        "table": "CUBLAS_API_supported_by_HIP.md",
        "rename": ["cublas", "hipblas"],
        "variants": ["_v2", "_64", "_v2_64"],
    },
    "curand": {
        "title": "cuRAND",
        "target": "hipRAND",
        "table": "CURAND_API_supported_by_HIP.md",
        "rename": ["curand", "hiprand"],
        "variants": [],
    },
    "cudnn": {
        "title": "cuDNN",
        "target": "MIOpen",
        "table": "CUDNN_API_supported_by_MIOPEN.md",
        "rename": ["cudnn", "miopen"],
        "variants": [],
    },
}
"""The tables read, and how each family is folded (kept in step with hipify.yaml's header)."""

SKIPPED_SECTIONS = re.compile(r"data\s+types|direct3d|vdpau|\begl\b", re.IGNORECASE)
_SECTION = re.compile(r"^##\s+\*\*\d+\.\s*(.+?)\*\*\s*$")
_CODE = re.compile(r"^`([^`]+)`$")


@dataclass(frozen=True)
class Row:
    """One function row: the CUDA name, the HIP name ("" when unsupported), HIP-deprecated or not."""

    name: str
    hip: str
    deprecated: bool


def parse_table(text: str) -> list[Row]:
    """The function rows of one HIPIFY Markdown table."""
    rows: list[Row] = []
    skipping = True
    for line in text.splitlines():
        section = _SECTION.match(line.strip())
        if section:
            skipping = bool(SKIPPED_SECTIONS.search(section.group(1)))
            continue
        if skipping or not line.startswith("|`"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        name = _CODE.match(cells[0])
        if name is None or name.group(1)[0].isupper():
            continue  # a type or macro listed among the functions
        hip = _CODE.match(cells[5]) if len(cells) > 5 else None
        deprecated = len(cells) > 7 and bool(cells[7])
        rows.append(Row(name.group(1), hip.group(1) if hip else "", deprecated and hip is not None))
    return rows


@dataclass
class Folded:
    """A family as hipify.yaml stores it."""

    same: list[str] = field(default_factory=list)
    other: dict[str, str] = field(default_factory=dict)
    deprecated: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)


def fold(rows: list[Row], rename: list[str], variants: list[str]) -> Folded:
    """Drop the variant rows that follow their base row; split the rest by how they map."""
    by_name = {row.name: row for row in rows}
    out = Folded()
    for row in sorted(by_name.values(), key=lambda r: r.name):
        if _follows_base(row, by_name, variants):
            continue
        if not row.hip:
            out.unsupported.append(row.name)
            continue
        cuda_prefix, hip_prefix = rename
        if row.name.startswith(cuda_prefix) and row.hip == hip_prefix + row.name[len(cuda_prefix) :]:
            out.same.append(row.name)
        else:
            out.other[row.name] = row.hip
        if row.deprecated:
            out.deprecated.append(row.name)
    return out


def _follows_base(row: Row, by_name: dict[str, Row], variants: list[str]) -> bool:
    for suffix in sorted(variants, key=len, reverse=True):
        if row.name.endswith(suffix) and row.name[: -len(suffix)] in by_name:
            base = by_name[row.name[: -len(suffix)]]
            derived = base.hip + ("_64" if suffix.endswith("_64") and base.hip else "")
            return row.hip == derived and row.deprecated == base.deprecated
    return False


def _words(names: list[str], indent: str = "      ", width: int = 104) -> list[str]:
    lines: list[str] = []
    current = ""
    for name in names:
        if current and len(indent) + len(current) + 1 + len(name) > width:
            lines.append(indent + current)
            current = name
        else:
            current = f"{current} {name}" if current else name
    if current:
        lines.append(indent + current)
    return lines


def render(families: dict[str, tuple[dict[str, Any], str, Folded]]) -> str:
    """hipify.yaml's text: the header, then each family (config, commit, folded rows)."""
    out = [HEADER.read_text(encoding="utf-8").rstrip("\n"), "schema: 1", f"source: {SOURCE}", "families:"]
    for key, (config, commit, folded) in families.items():
        out += [
            f"  {key}:",
            f"    title: {config['title']}",
            f"    target: {config['target']}",
            f"    table: {config['table']}",
            f"    commit: {commit}",
            f"    rename: [{', '.join(config['rename'])}]",
            f"    variants: [{', '.join(config['variants'])}]",
        ]
        for label, names in (("same", folded.same),):
            out += [f"    {label}: >-", *_words(names)] if names else [f'    {label}: ""']
        if folded.other:
            out += ["    other:"] + [f"      {name}: {hip}" for name, hip in sorted(folded.other.items())]
        else:
            out.append("    other: {}")
        for label, names in (("deprecated", folded.deprecated), ("unsupported", folded.unsupported)):
            out += [f"    {label}: >-", *_words(sorted(names))] if names else [f'    {label}: ""']
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", type=Path, help="folder holding the Markdown tables named in FAMILIES")
    parser.add_argument("--commit", required=True, help="the HIPIFY commit the tables were fetched at")
    parser.add_argument("-o", "--output", type=Path, help="write here (default: stdout)")
    args = parser.parse_args(argv)
    families: dict[str, tuple[dict[str, Any], str, Folded]] = {}
    for key, config in FAMILIES.items():
        path = args.tables / config["table"]
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            print(f"hipify_tables: cannot read {path}: {error.strerror}", file=sys.stderr)
            return 2
        families[key] = (config, args.commit, fold(parse_table(text), config["rename"], config["variants"]))
    text = render(families)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
