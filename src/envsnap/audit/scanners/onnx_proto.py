"""Just enough protobuf to read an ONNX model's header: IR version, opsets, and the ops' domains.

The ``onnx`` package would pull in a C++ extension to answer three questions; the wire format
is simple (varint keys, length-delimited fields), so this walks ``ModelProto`` directly over a
memory map, *skipping* tensor data by its length instead of reading it: a 10 GB model costs a
few page reads. Field numbers are from onnx/onnx.proto (ModelProto.ir_version = 1, graph = 7,
opset_import = 8; GraphProto.node = 1; NodeProto.op_type = 4, domain = 7;
OperatorSetIdProto.domain = 1, version = 2).

Every read is bounds-checked; malformed input raises ``ValueError``, never anything else.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

MAX_NODES = 2_000_000
MAX_FIELDS = 1_000_000
"""Protobuf fields read for one header. Tensor data is skipped by its length, so a real model's
header is its nodes (a few fields each): a 100k-node graph reads well under this. A crafted file of
millions of tiny fields (32 MB took 20 s) is refused at the budget instead."""


@dataclass
class OnnxHeader:
    """What the audit needs from a model."""

    ir_version: int | None = None
    opsets: dict[str, int] = field(default_factory=dict)
    """Domain ("" for the default ai.onnx) -> opset version."""
    op_domains: Counter[str] = field(default_factory=Counter)
    """Nodes per domain."""
    custom_ops: Counter[str] = field(default_factory=Counter)
    """``domain::op_type`` of nodes outside the standard domains."""


STANDARD_DOMAINS = frozenset({"", "ai.onnx", "ai.onnx.ml", "ai.onnx.training", "ai.onnx.preview.training"})


def _varint(data: memoryview | bytes, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end:
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


class Budget:
    """Fields left to read for one header (shared by every nested walk of it)."""

    def __init__(self, fields: int = MAX_FIELDS) -> None:
        self.left = fields
        self.total = fields

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise ValueError(f"more than {self.total} protobuf fields in the header; not read further")


def fields(
    data: memoryview | bytes, start: int, end: int, budget: Budget | None = None
) -> Iterator[tuple[int, int, int, int]]:
    """``(field number, wire type, value or start, end)`` of each field in ``data[start:end]``.

    Varints give their value (and end == start); length-delimited fields give their span. Each
    field read is paid from ``budget`` (ValueError when it runs out).
    """
    pos = start
    while pos < end:
        if budget is not None:
            budget.spend()
        key, pos = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0")
        if wire == 0:
            value, pos = _varint(data, pos, end)
            yield number, wire, value, pos
        elif wire == 1:
            pos += 8
            yield number, wire, pos - 8, pos
        elif wire == 2:
            length, pos = _varint(data, pos, end)
            if length > end - pos:
                raise ValueError("length past the end")
            yield number, wire, pos, pos + length
            pos += length
        elif wire == 5:
            pos += 4
            yield number, wire, pos - 4, pos
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if pos > end:
            raise ValueError("field past the end")


def _text(data: memoryview | bytes, start: int, end: int) -> str:
    return bytes(data[start:end]).decode("utf-8", errors="replace")


def read_header(data: memoryview | bytes, budget: Budget | None = None) -> OnnxHeader:
    """Parse a serialized ModelProto's header.

    Raises:
        ValueError: not a protobuf message, or truncated.
    """
    budget = budget or Budget()
    header = OnnxHeader()
    size = len(data)
    for number, wire, a, b in fields(data, 0, size, budget):
        if number == 1 and wire == 0:
            header.ir_version = a
        elif number == 8 and wire == 2:
            domain, version = "", 0
            for sub, sub_wire, x, y in fields(data, a, b, budget):
                if sub == 1 and sub_wire == 2:
                    domain = _text(data, x, y)
                elif sub == 2 and sub_wire == 0:
                    version = x
            header.opsets[domain] = version
        elif number == 7 and wire == 2:
            _read_graph(data, a, b, header, budget)
    if header.ir_version is None and not header.opsets:
        raise ValueError("no ONNX model fields")
    return header


def _read_graph(data: memoryview | bytes, start: int, end: int, header: OnnxHeader, budget: Budget) -> None:
    nodes = 0
    for number, wire, a, b in fields(data, start, end, budget):
        if number != 1 or wire != 2:
            continue  # initializers, inputs, outputs: skipped by length
        nodes += 1
        if nodes > MAX_NODES:
            raise ValueError("too many nodes")
        op_type, domain = "", ""
        for sub, sub_wire, x, y in fields(data, a, b, budget):
            if sub == 4 and sub_wire == 2:
                op_type = _text(data, x, y)
            elif sub == 7 and sub_wire == 2:
                domain = _text(data, x, y)
        header.op_domains[domain] += 1
        if domain not in STANDARD_DOMAINS:
            header.custom_ops[f"{domain}::{op_type}"] += 1
