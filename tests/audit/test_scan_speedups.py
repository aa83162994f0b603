"""The speed work of #22 item 9 changes what is parsed, never what is found.

The scanner finds trigger lines with one Aho-Corasick pass, parses only the top-level statements
(and, in a long class, the members) that hold one, and skips comment and doctest lines. Each test
here compares against the plain reading: the whole file parsed and visited.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from envsnap.audit.scanners import python_chunks as chunks
from envsnap.audit.scanners import python_trigger
from envsnap.audit.scanners.native_trigger import TRIGGER as NATIVE_TRIGGER
from envsnap.audit.scanners.native_trigger import native_triggered
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import PROJECTS

Found = list[tuple[str, int | None, str, bool]]


def whole(monkeypatch: pytest.MonkeyPatch, relative: str, text: str) -> Found:
    """The signals with no chunking at all (every file parsed whole).

    ``_guard_by_callers`` runs in both: a long module's helpers are counted from its text either way
    (#22 blind round 9), so the parse does not change which ones are guarded.
    """
    with monkeypatch.context() as patch:
        patch.setattr(chunks, "CHUNK_MIN_LINES", 10**9)
        return [(s.kind, s.line, s.subject, s.guarded) for s in scan_python(relative, text)]


def chunked(relative: str, text: str) -> Found:
    return [(s.kind, s.line, s.subject, s.guarded) for s in scan_python(relative, text)]


def padding(count: int) -> str:
    """Plain top-level code that holds no trigger, so the file is long enough to be chunked."""
    return "".join(f"def plain_{n}(x):\n    return x + {n}\n\n\n" for n in range(count))


# ---------------------------------------------------------------------------- trigger lines


def test_trigger_lines_are_code_lines_with_a_token() -> None:
    text = (
        b"import torch\n"  # 1
        b"# move it with .cuda() later\n"  # 2: a comment
        b'def f(x):\n    """Example:\n\n    >>> x.to("cuda")\n    """\n'  # 3-7: a doctest line
        b"    return x.cuda()\n"  # 8
        b"requires_grad = _require_grad()\n"  # 9: an anchor (_require), not a trigger
        b"    ... x.cuda()\n"  # 10: a doctest continuation
    )
    assert trigger_lines(text) == [8]


def test_trigger_lines_count_lines_as_the_tokenizer_does() -> None:
    # A form feed is whitespace to Python, not a line break (str.splitlines would count one).
    text = "import torch\n\x0c\ndef f(x):\n    return x.cuda()\r\n"
    assert trigger_lines(text.encode()) == [4]
    assert [s.line for s in scan_python("f.py", text) if s.kind == "device-hardcode"] == [4]


def test_triton_inline_assembly_is_a_trigger_on_its_own() -> None:
    assert trigger_lines(b'y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x])\n') == [1]


def test_a_token_inside_a_triple_quoted_string_is_prose() -> None:
    """transformers 5.24.0's configs say "custom CUDA and CPU kernels" in docstrings: no parse for that."""
    text = (
        b'"""Helpers for the CUDA kernels."""\n'  # 1: a docstring
        b"import torch\n"  # 2
        b"def f(x, disable_custom_kernels=False):\n"  # 3
        b'    """\n'  # 4
        b"    disable_custom_kernels: Disable the use of custom CUDA and CPU kernels.\n"  # 5
        b'    """\n'  # 6
        b'    message = f"""running on {x.device} with torch.compile"""; y = x.cuda()\n'  # 7: code after it
        b"    return y\n"  # 8
    )
    assert trigger_lines(text) == [7]


def test_kernel_source_in_a_string_stays_hot() -> None:
    """CUDA C++ compiled at run time (CuPy's RawKernel, KeOps) is written in a triple-quoted string."""
    text = b'import math\nsrc = r"""\nextern "C" __global__ void k(float* x) { x[0] = 1; }\n"""\n'
    assert trigger_lines(text) == [3]


@pytest.mark.parametrize(
    "misleading",
    [
        b'    # write docs with """ quotes\n',  # a triple quote in a comment
        b'    q = \'"""\'\n',  # a triple quote in a one-line string
        b'    q = "\\"""\n',  # an escaped quote
    ],
)
def test_a_triple_quote_that_may_not_open_a_string_makes_every_token_code(misleading: bytes) -> None:
    """Paired wrongly, the quotes would call code a string: where pairing is unsure, nothing is dropped."""
    text = (
        b"import torch\ndef f(x):\n" + misleading + b'    y = x.cuda()\n    z = """\n    """\n    return y\n'
    )
    assert trigger_lines(text) == [4]


def test_a_file_whose_only_token_is_from_numpy_is_not_parsed() -> None:
    """``from_numpy`` only explains a ``.double()`` elsewhere in the file; alone it finds nothing."""
    host = b"import numpy as np\nimport torch\nt = torch.from_numpy(np.zeros(3))\n"
    assert trigger_lines(host) == []
    assert trigger_lines(host + b"u = t.double()\n") == [3, 4]


@pytest.mark.parametrize(
    ("line", "hot"),
    [
        (b"x = np.zeros(3, dtype=np.float64)\n", False),
        (b"ok = a.dtype is numpy.dtype(numpy.float64)\n", False),
        (b"x = torch.zeros(3, dtype=torch.float64)\n", True),
        (b"x = th.ones(3, dtype=th.float64)\n", True),  # torch under another name
        (b"from torch import float64\n", True),
        (b"x = torch.zeros(3, dtype=np.float64 if a else torch.float64)\n", True),
    ],
)
def test_numpys_float64_is_no_trigger_and_torchs_is(line: bytes, hot: bool) -> None:
    assert (trigger_lines(line) == [1]) is hot


def every_token_line(data: bytes) -> list[int]:
    """The hot lines without the narrowing: any token on a code line, strings and NumPy's float64 included."""
    broad = re.compile(python_trigger.TRIGGER.pattern.replace(rb"(?<!np\.)(?<!numpy\.)", b""))
    return [
        number
        for number, line in enumerate(data.split(b"\n"), 1)
        if not line.lstrip().startswith((b"#", b">>>", b"...")) and broad.search(line)
    ]


_LEFT_OUT = ("optional-module", "device-call")


def _compared(signal: object) -> bool:
    """Whether a signal takes part in the comparison: not of a kind left out, and not a device menu that
    names no trigger word (napari-convpaint 1.2's ``valid = {'auto', 'gpu', 'cpu'}`` policy check, #22 blind
    round 468): nothing on its lines is a token, so it is read only where another token (here an
    ``if use_device is None:`` with no fill after it) brings its function into the parse."""
    kind, subject = getattr(signal, "kind", ""), getattr(signal, "subject", "") or ""
    if kind in _LEFT_OUT:
        return False
    return kind != "device-choices" or python_trigger.TRIGGER.search(subject.encode()) is not None


def test_the_string_and_float64_rules_change_no_signal_of_the_corpus() -> None:
    """Every corpus module scans to the same signals with the narrowed hot lines as with every token line
    (measured on transformers 5.24.0 and torch 2.13 too: 307 -> 198 and 2,265 -> 2,196 files parsed, the
    same signals).

    Left out: ``optional-module``, which the scanner emits for every ``try: import`` of a file it parses
    (round 23): a file parsed only for a docstring's "CUDA" named its optional imports, one that is not
    parsed names none. No such import of this corpus is of the project's own modules, the only ones
    across_files._optional_modules acts on. Nor ``device-call``, emitted for the calls of a possible device
    ladder that the visitor happens to walk: scan._unseen_picker_calls counts the rest from the text. Nor a
    device menu naming no trigger word (``_compared``).
    """
    compared = changed = 0
    for path in sorted(PROJECTS.rglob("*.py")):
        data = path.read_bytes()
        every = every_token_line(data)
        hot = trigger_lines(data)
        if hot == every:
            continue
        try:
            text = data.decode("utf-8")
            plain = sorted(repr(s) for s in scan_python(path.name, text, every) if _compared(s))
        except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            continue
        found = scan_python(path.name, text, hot) if hot else []  # no hot line: the scan never parses it
        narrowed = sorted(repr(s) for s in found if _compared(s))
        compared += 1
        changed += narrowed != plain
    assert compared >= 50
    assert changed == 0


# ---------------------------------------------------------------------------- chunked parse = whole parse


def test_a_module_string_at_column_zero_does_not_cut_the_file_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    # transformers' testing_utils.py: a bare module-level string whose prose starts at column 0.
    text = (
        "import torch\n\n"
        + padding(120)
        + '"""\nThe following helpers move models to cuda devices.\nclass Helper is meant for tests.\n"""\n\n'
        + "def move(m):\n    return m.cuda()\n"
        + padding(20)
    )
    assert len(text.splitlines()) >= chunks.CHUNK_MIN_LINES
    assert chunked("m.py", text) == whole(monkeypatch, "m.py", text)
    assert ("device-hardcode", text.splitlines().index("    return m.cuda()") + 1) in [
        (kind, line) for kind, line, _, _ in chunked("m.py", text)
    ]


def test_a_long_class_keeps_its_guards_decorators_and_hot_members(monkeypatch: pytest.MonkeyPatch) -> None:
    methods = "".join(f"    def plain_{n}(self, x):\n        return x + {n}\n\n" for n in range(60))
    text = (
        "import torch\n\n\n" + padding(110) + "@register('xpu')\n"
        "class Model(\n    torch.nn.Module,\n):\n"
        '    """A model.\n\n    class is meant to be moved; def of a word at the body indent.\n    """\n\n'
        "    device_type: str = 'cuda'\n\n"
        + methods
        + "    @staticmethod\n    def arch():\n        return torch.cuda.get_device_capability()\n\n"
        "    def run(self, x):\n"
        "        if not torch.cuda.is_available():\n            return x\n"
        "        return x.to('cuda')\n" + methods.replace("plain_", "more_")
    )
    found = chunked("model.py", text)
    assert found == whole(monkeypatch, "model.py", text)
    assert {kind for kind, _, _, _ in found} >= {"port", "cuda-api", "device-hardcode"}


def test_a_decorated_function_is_visited_from_its_decorator() -> None:
    # A def's lineno is its `def` line: a trigger only in the decorator must not be skipped.
    text = "import torch\n\n@register_kernel('ops::gemm', 'xpu')\ndef _(a, b):\n    return a @ b\n"
    assert [(s.kind, s.line) for s in scan_python("ops.py", text)] == [("port", 3)]


def test_every_call_inside_a_guard_counts_for_a_guarded_helper() -> None:
    # `_arch(0)` holds no trigger token; it is still a call made only under the guard.
    text = (
        "import torch\n\n\ndef _arch(i):\n    return torch.cuda.get_device_capability(i)\n\n\n"
        "def arch(device):\n    if torch.cuda.is_available():\n        return _arch(0)\n    return None\n"
    )
    calls = [s for s in scan_python("a.py", text) if s.subject == "torch.cuda.get_device_capability"]
    assert [s.guarded for s in calls] == [True]


def real_sources() -> list[Path]:
    """Long modules of the installed torch that hold triggers: real code, real layouts."""
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    picked = []
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        if data.count(b"\n") >= chunks.CHUNK_MIN_LINES and trigger_lines(data):
            picked.append(path)
    return picked[:: max(1, len(picked) // 40)]


def test_chunks_find_what_a_whole_parse_finds_in_real_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = real_sources()
    assert len(sources) >= 30
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert chunked(path.name, text) == whole(monkeypatch, path.name, text), path


def test_the_parsed_part_of_a_long_module_is_small() -> None:
    """The point of the chunks: a 4,800-line class with one hot method parses that method."""
    method = "    def m{n}(self, x):\n        y = x * {n}\n        return y + 1\n\n"
    methods = "".join(method.format(n=n) for n in range(1200))
    text = "import torch\n\n\nclass Big:\n" + methods + "    def go(self, x):\n        return x.cuda()\n"
    lines = [line + "\n" for line in text.split("\n")]
    tree = chunks.parse_hot(text, lines, "big.py", trigger_lines(text.encode()))
    assert [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)] == ["go"]
    assert [(s.kind, s.line) for s in scan_python("big.py", text)] == [("device-hardcode", len(lines) - 1)]


# ---------------------------------------------------------------------------- the native prefilter


@pytest.mark.parametrize(
    ("source", "wanted"),
    [
        (b"// ownership and relationship of the graph\nint x;\n", False),  # "hip" inside words
        (b"#include <vector>\nstatic int warp = 32;\n", False),
        (b"int n = hipGetDeviceCount(&c);\n", True),
        (b"#ifdef __HIPCC__\n#endif\n", True),
        (b"constexpr int kWarpSize = 32;\n", True),
        (b'asm volatile("nop");\n', True),
        (b"x = plasma(1);\n", False),  # "asm" inside a word
        (b"cuMemAlloc(&p, n);\n", True),
        (b"__shfl_xor_sync(mask, v, 1);\n", True),
    ],
)
def test_the_native_prefilter_is_the_word_bounded_pattern(source: bytes, wanted: bool) -> None:
    assert native_triggered(source) is wanted
    assert (NATIVE_TRIGGER.search(source) is not None) is wanted


def test_the_native_prefilter_agrees_with_the_pattern_on_real_headers() -> None:
    """torch's own include tree: thousands of real C++ headers, CUDA and not."""
    torch = pytest.importorskip("torch")
    headers = sorted((Path(torch.__file__).parent / "include").rglob("*.h"))[::7]
    assert len(headers) > 300
    for path in headers:
        data = path.read_bytes()
        assert native_triggered(data) is (NATIVE_TRIGGER.search(data) is not None), path
