"""What a piece of Python syntax means for the audit: device strings, port switches, guard clauses.

Predicates over ``ast`` nodes and names, no state: the visitor (python.py) asks them what it is
looking at. Kept apart so each rule reads as one function.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterator

from envsnap.audit.ports import ORT_CUDA_PROVIDERS

_BLOCK_ITEMS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(node: ast.AST) -> Iterator[ast.AST]:
    """Every statement under ``node`` (and the except handlers and match cases holding them), breadth first
    as ``ast.walk`` finds them, but never an expression: what a search for imports or assignments needs,
    at a fraction of the nodes (a function's expressions are most of its tree)."""
    queue = deque([node])
    while queue:
        current = queue.popleft()
        yield current
        for field in current._fields:
            block = getattr(current, field, None)
            if isinstance(block, list) and block and isinstance(block[0], _BLOCK_ITEMS):
                queue.extend(block)


Branch = tuple[int, int]
"""An ``if`` (its id) and its block (0 body, 1 ``else``); a ``match`` and its case's index."""


def branched_statements(node: ast.AST) -> Iterator[tuple[ast.AST, frozenset[Branch]]]:
    """``statements``, each with the ``if``/``match`` branches that hold it (from ``node`` down)."""
    queue: deque[tuple[ast.AST, frozenset[Branch]]] = deque([(node, frozenset())])
    while queue:
        current, branches = queue.popleft()
        yield current, branches
        if isinstance(current, ast.If):
            queue.extend((child, branches | {(id(current), 0)}) for child in current.body)
            queue.extend((child, branches | {(id(current), 1)}) for child in current.orelse)
            continue
        if isinstance(current, ast.Match):
            for index, case in enumerate(current.cases):
                queue.extend((child, branches | {(id(current), index)}) for child in case.body)
            continue
        for field in current._fields:
            block = getattr(current, field, None)
            if isinstance(block, list) and block and isinstance(block[0], _BLOCK_ITEMS):
                queue.extend((child, branches) for child in block)


DEVICE_STRING = re.compile(r"^cuda(:\d+)?$")
_BACKEND_WORDS = frozenset(
    {"xpu", "mps", "npu", "mlu", "hip", "rocm", "amd", "nvidia", "intel", "metal", "nccl"}
)
"""``is_intel_xpu()``, ``torch.version.hip``, ``CPUState.MPS``: a test naming a backend branches per device,
so the code has a path for the other devices. Matched on whole identifier parts (``dumps`` is not ``mps``).
``Backend.NCCL``: NCCL (RCCL on ROCm) runs only with NVIDIA or AMD GPUs, so a test of it is a device test."""
GPU_ONLY_BACKENDS = frozenset({"nccl"})
"""torch.distributed backends that exist only for CUDA/ROCm GPUs: ``backend == "nccl"`` tests the device
(SpeechBrain 1.0 utils/distributed.py sets the CUDA device only under it, #22 blind round 11)."""
DEVICE_TYPES = frozenset({"cuda", "cpu", "mps", "xpu", "npu", "mlu", "hip", "meta"})
_ARCH = re.compile(r"\d+\.\d+(\+PTX)?")
_ARCH_SEPARATORS = re.compile(r"([;\s]+)")

PORT_STRINGS = {"xpu": "xpu", "mps": "mps", "hip": "rocm", "rocm": "rocm"}
DEVICE_WORDS = frozenset({*PORT_STRINGS, "cuda", "cpu", "gpu", "npu", "hpu", "mlu", "xla", "tpu", "meta"})
VOCABULARY_MIN = 8
"""A literal list this long whose words are mostly not device names is a vocabulary, not a device table."""


def vocabulary_list(node: ast.List | ast.Tuple | ast.Set) -> bool:
    """A long literal list of words that is no device table: torchvision 0.29's ImageNet categories
    (models/_meta.py) hold "hip" (the rose hip) among a thousand class names (#22 round 39's report). A
    table that names devices (``["cuda", "xpu", "mps"]``, ``("cpu", "cuda", "hip")``) keeps them."""
    words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(words) < VOCABULARY_MIN:
        return False
    return sum(word.lower() in DEVICE_WORDS for word in words) * 2 < len(words)


PORT_NAMES = {
    "is_rocm_pytorch": "rocm",
    "IS_ROCM": "rocm",
    "IS_HIP": "rocm",
    "IS_ROCM_PYTORCH": "rocm",
    "ROCM_HOME": "rocm",
    "USE_ROCM": "rocm",
    "BUILD_ROCM": "rocm",
    "is_hip": "rocm",
    "is_rocm": "rocm",
    "IS_XPU": "xpu",
    "is_xpu": "xpu",
}


def port_attribute(name: str) -> tuple[str, str] | None:
    """(target, reason) for attributes that only a ported code path reads."""
    if name.startswith("torch.version.hip"):
        return "rocm", "branches on torch.version.hip"
    if name.split(".")[-1] in PORT_NAMES:
        return PORT_NAMES[name.split(".")[-1]], f"build switch {name.split('.')[-1]}"
    if name.startswith(("torch.xpu.", "torch.backends.xpu")):
        return "xpu", "uses torch.xpu"
    if name.startswith(("torch.mps.", "torch.backends.mps")):
        return "mps", "uses torch.mps"
    return None


CUPY_KERNELS = frozenset(
    f"{module}.{kind}"
    for module in ("cupy", "cupyx")
    for kind in ("RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel")
)
"""CuPy's user-defined kernels: CUDA C++ source, compiled when first called."""

DEVICE_WORDS = frozenset(
    {"auto", "cpu", "cuda", "gpu", "mps", "xpu", "npu", "hpu", "mlu", "xla", "tpu", "meta", "hip", "rocm"}
)


def is_device_menu(names: list[str]) -> bool:
    """Every value a device name, 'cpu' and a CUDA device among them: a list of devices, not of modes."""
    return (
        len(names) >= 2
        and "cpu" in names
        and any(DEVICE_STRING.match(name) for name in names)
        and all(name.split(":")[0] in DEVICE_WORDS for name in names)
    )


def is_device_string(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and bool(DEVICE_STRING.match(node.value))
    )


def lookup_fallback(node: ast.Call) -> ast.AST | None:
    """The fallback of a settings lookup: ``getattr(args, "device", FALLBACK)``, ``cfg.get("device",
    FALLBACK)``, ``kwargs.pop(...)``, ``os.getenv("DEVICE", FALLBACK)``.

    The value comes from the caller's settings; the fallback is used only where they name none, so a
    device string there is a default the user overrides (timm 1.0.15 utils/distributed.py passes
    ``device=getattr(args, 'device', 'cuda')``, #22 blind round 13), not a device the code is bound to.
    """
    func = node.func
    if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) == 3:
        return node.args[2]
    method = func.attr if isinstance(func, ast.Attribute) else None
    if (
        method in ("get", "pop", "setdefault", "getenv")
        and len(node.args) == 2
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[1]
    return None


_AVAILABLE_TEST = re.compile(r"^if[ \t][^#\n]{0,200}\bis_\w+_available\(")
_INDENTED_IMPORT = re.compile(r"^[ \t]+(?:from|import)[ \t]+([A-Za-z_]\w*)")


def optional_imports(lines: list[str]) -> set[str]:
    """Top-level names of the packages a module imports only under a module-level ``if is_x_available():``."""
    names: set[str] = set()
    inside = False
    for line in lines:
        if line[:1].isalpha() or line[:1] == "_":
            inside = bool(_AVAILABLE_TEST.match(line))
            continue
        if inside and (match := _INDENTED_IMPORT.match(line)) is not None:
            names.add(match.group(1).lower())
    return names


def cpu_by_default(args: ast.arguments) -> set[str]:
    """The parameters whose default is the "cpu" device (``device="cpu"``): the caller may pick another."""
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)]
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value == "cpu"}


def init_switches(node: ast.ClassDef, value: bool | None = False) -> set[str]:
    """``self.X = x`` in the class's ``__init__`` where the parameter ``x`` defaults to False (``value``)."""
    for member in node.body:
        if isinstance(member, ast.FunctionDef) and member.name == "__init__":
            off = off_by_default(member.args, value)
            return {
                target.attr
                for statement in member.body
                if isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Name)
                and statement.value.id in off
                for target in statement.targets
                if isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            }
    return set()


_ASSIGNED = re.compile(r"[ \t]*(=(?!=)|\+=|\|=|:(?!=))[ \t]*(False\b)?")


def false_attribute(text: str, name: str) -> bool:
    """Whether the module sets ``self.<name>`` to ``False`` (``self.model_parallel = False``) and to nothing
    else: no other assignment of that attribute, no parameter, keyword, field or variable of that name.
    ``if self.model_parallel:`` is then dead code: torch-rechub 0.9's TIGER keeps Hugging Face T5's legacy
    model-parallel branches (``torch.cuda.set_device``) after ``self.model_parallel = False`` in ``__init__``
    (#22 blind round 80). Read from the text (a long module parsed in parts still shows it), one ``find`` per
    occurrence of the name: asked only for the attributes an ``if`` tests."""
    if not name.isidentifier():
        return False
    set_false = False
    start = 0
    while (at := text.find(name, start)) != -1:
        start = at + len(name)
        before = text[at - 1] if at else "\n"
        after = text[start] if start < len(text) else "\n"
        if before.isalnum() or before == "_" or after.isalnum() or after == "_":
            continue  # part of a longer name
        assigned = _ASSIGNED.match(text, start)
        if assigned is None:
            continue
        if before != ".":
            return False  # a parameter, keyword, field or variable of that name: a setting
        if assigned.group(1) == ":":
            continue  # `if self.flag:`
        if assigned.group(1) != "=" or assigned.group(2) is None or text[max(0, at - 5) : at] != "self.":
            return False  # set to something else
        set_false = True
    return set_false


_CUDA_SWITCH = re.compile(r"^_?(?:use_|with_|enable_|on_)?(?:cuda|gpu)(?:_enabled)?$", re.IGNORECASE)


def cuda_switch(test: ast.expr) -> bool:
    """``if cuda:``, ``if self.use_cuda:``, ``if args.gpu and ...``: a boolean the user sets to put the work
    on CUDA. torch-fidelity's ``cuda=True`` (#22 round 74), FedLab's ``self.cuda`` (round 90) and VoiceFixer's
    ``cuda`` argument are the projects' device switch: the placements under it are ``.cuda()``, so off CUDA
    the switch can only be turned off."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for part in parts:
        word = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else ""
        if _CUDA_SWITCH.match(word):
            return True
    return False


def cpu_comparison(test: ast.expr) -> str | None:
    """``device == "cpu"`` (``.type == "cpu"``, ``== torch.device("cpu")``): "eq"; ``!= "cpu"``: "ne"; else
    None. Which branch a test on the CPU leaves to every accelerator, the target's included.

    ``device is not None and device != torch.device("cpu")`` is "ne" too: a test that the value is set says
    nothing about which device it names (orb-models 0.5.5's ``model.cuda(device)`` behind it, #22 blind
    round 141, raises for an 'xpu' or 'mps' device)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        parts = [None if _none_test(value) else cpu_comparison(value) for value in test.values]
        return (
            "ne"
            if "ne" in parts
            and all(p == "ne" or _none_test(v) for p, v in zip(parts, test.values, strict=True))
            else None
        )
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    for side in (test.left, test.comparators[0]):
        value = side.args[0] if isinstance(side, ast.Call) and len(side.args) == 1 else side
        if isinstance(value, ast.Constant) and value.value == "cpu":
            op = test.ops[0]
            return (
                "eq"
                if isinstance(op, (ast.Eq, ast.Is))
                else "ne"
                if isinstance(op, (ast.NotEq, ast.IsNot))
                else None
            )
    return None


def cpu_only_test(test: ast.expr) -> bool:
    """A test that holds on the CPU alone: ``device == "cpu"``, each side of an ``or`` such a test, and an
    ``and`` of one with type checks (``isinstance(model.device, str) and model.device == "cpu"``).

    Behind ``if <it>: raise``, what follows runs on every accelerator, the target's included: TorchSim 0.3's
    memory estimator refuses the CPU, then calls ``torch.cuda.synchronize()`` and
    ``torch.cuda.max_memory_allocated()`` for an 'xpu' model too (#22 blind round 170)."""
    if cpu_comparison(test) == "eq":
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(cpu_only_test(value) for value in test.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(cpu_comparison(value) == "eq" for value in test.values) and all(
            cpu_comparison(value) == "eq" or _type_check(value) for value in test.values
        )
    return False


def _type_check(test: ast.expr) -> bool:
    """``isinstance(x, T)``, ``hasattr(x, "name")``: a test of the value's kind, not of its device."""
    return (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id in ("isinstance", "hasattr")
    )


def _none_test(test: ast.expr) -> bool:
    """``x is not None`` / ``x is None``: whether a value is set."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def off_by_default(args: ast.arguments, value: bool | None = False) -> set[str]:
    """The parameters whose default is ``False``: switches the caller turns on (``use_deepspeed=False``);
    with ``value=True``, those on by default, which the caller turns off; with ``value=None``, those unset."""
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)]
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is value}


_MODULE_ASSIGN = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)\s*(.*?)\s*(?:#.*)?$")


def module_switches(lines: list[str]) -> frozenset[str]:
    """Names a module sets to ``False`` at its top level, and to nothing else there (``_USE_VLLM = False``):
    flags off by default. Read from the text, so a long module parsed in parts still shows them."""
    off: set[str] = set()
    other: set[str] = set()
    for line in lines:
        if not line or not (line[0].isalpha() or line[0] == "_"):
            continue  # only column-0 statements are module level
        match = _MODULE_ASSIGN.match(line)
        if match is not None:
            (off if match.group(2) == "False" else other).add(match.group(1))
    return frozenset(off - other)


_ENV_READ = re.compile(
    r"""^os\.(?:getenv|environ\.get)\(\s*["'][A-Za-z_][A-Za-z0-9_]{0,100}["']\s*"""
    r"""(?:,\s*(?:None|["'](?:0|false|False|FALSE|no|off)?["']))?\s*\)$"""
)
"""``os.getenv("BASICSR_JIT")``, ``os.environ.get("X", "0")``: an environment variable read with no default or
an off one: unset, as on a fresh install, it turns nothing on."""
_ON_VALUES = frozenset({"1", "true", "True", "TRUE", "yes", "on", "ON"})


def env_switches(lines: list[str]) -> frozenset[str]:
    """Names a module binds at its top level to an environment variable read off by default
    (``BASICSR_JIT = os.getenv('BASICSR_JIT')``, basicsr 1.4.2 ops/dcn/deform_conv.py). Read from the text."""
    names: set[str] = set()
    for line in lines:
        if not line or not (line[0].isalpha() or line[0] == "_"):
            continue
        match = _MODULE_ASSIGN.match(line)
        if match is not None and _ENV_READ.match(match.group(2)):
            names.add(match.group(1))
    return frozenset(names)


def env_switch(test: ast.expr, switches: frozenset[str]) -> bool:
    """``if BASICSR_JIT == 'True':`` (a name from ``env_switches``) or ``if os.getenv("BUILD_CUDA_EXTENSIONS",
    "0") == "1":`` (fairscale 0.4.13 setup.py): a branch taken only when the user sets the variable, an opt-in
    (#22 rounds 42 and 43: both projects' CUDA extensions are built only so)."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value in _ON_VALUES
    ):
        return False
    left = test.left
    if isinstance(left, ast.Name):
        return left.id in switches
    return isinstance(left, ast.Call) and _ENV_READ.match(ast.unparse(left)) is not None


_ENABLED = re.compile(r"^_?is_\w+_enabled$")
"""``is_deepspeed_zero3_enabled()``, ``is_sagemaker_mp_enabled()``: whether the user turned a feature on
(transformers 5.24 modeling_wav2vec2.py, training_args.py): what it guards is that feature's path, taken
only on request, like the body of an off-by-default switch."""
_TORCH_VERSION_TEST = re.compile(r"^_?(?:is_torch_(?:greater|newer|at_least)|TORCH_GREATER_EQUAL_\d)")
"""``torch.Stream() if _is_torch_greater_or_equal_than_2_7 else torch.cuda.Stream()`` (transformers 5.24
cache_utils.py): the CUDA branch is an older torch's; a torch with the generic API takes the other.
Lightning spells the flag as a constant: ``torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4
else torch.cuda.amp.GradScaler()`` (lightning 2.6 plugins/precision/amp.py, #22 blind round 29)."""


def switch_word(node: ast.Name | ast.Attribute) -> bool:
    """A name that tests a feature the user turns on, or the torch version: a branch, not the main path."""
    word = node.id if isinstance(node, ast.Name) else node.attr
    return bool(_ENABLED.match(word) or _TORCH_VERSION_TEST.match(word))


def feature_switch(test: ast.expr) -> bool:
    """``if is_deepspeed_zero3_enabled():``: the body is an opt-in feature's (see _ENABLED)."""
    node = test.func if isinstance(test, ast.Call) else test
    word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(_ENABLED.match(word))


def is_feature_flag(value: ast.expr) -> bool:
    """A value that is a feature switch: ``is_deepspeed_zero3_enabled() and not quantized``, or an attribute
    read with a False default (``getattr(self, "is_loaded_in_4bit", False)``, transformers 5.24)."""
    parts = value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And) else [value]
    for part in parts:
        if isinstance(part, ast.Call) and feature_switch(part):
            return True
        if (
            isinstance(part, ast.Call)
            and isinstance(part.func, ast.Name)
            and part.func.id == "getattr"
            and len(part.args) == 3
            and isinstance(part.args[2], ast.Constant)
            and part.args[2].value is False
        ):
            return True
    return False


def compared_strings(test: ast.expr) -> set[str]:
    """The string literals and enum members a test compares against (``"bitsandbytes" in str(optimizer_cls)``,
    ``self.distributed_type == DistributedType.DEEPSPEED`` in accelerate 1.15 accelerator.py): the operands
    themselves, not strings inside them (an environment variable's name in ``os.environ.get(...)``)."""
    names: set[str] = set()
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare):
            continue
        for part in (node.left, *node.comparators):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and len(part.value) > 2:
                names.add(part.value)
            elif isinstance(part, ast.Attribute) and part.attr.isupper():
                names.add(part.attr)
    return names


def cuda_branch_test(test: ast.expr) -> bool:
    """``device.type == "cuda"``, or a tuple of settings with the device among them compared to one naming
    'cuda' (aqlm 1.1.7's kernel selector: ``(optimize_for_training, codebooks.device.type, ...) == (False,
    "cuda", ...)``), alone or in an ``and``: the body runs only where the device is CUDA (ROCm's too)."""
    values = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for value in values:
        if not (isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.Eq)):
            continue
        for part in (value.left, *value.comparators):
            items = part.elts if isinstance(part, ast.Tuple) else [part]
            if any(
                isinstance(item, ast.Constant)
                and isinstance(item.value, str)
                and DEVICE_STRING.match(item.value)
                for item in items
            ):
                return True
    return False


_PRESENCE_WORD = re.compile(r"(?:^|_)(?:has|have|available|installed|importable)(?:_|$)")
PRESENCE_NAME_MIN = 4
"""A package name shorter than this (``jax``, ``te``) is found inside too many unrelated names."""


def presence_names(test: ast.expr) -> set[str]:
    """The names a test reads that say a package is present (``_has_triton``, ``HAS_FLASH_ATTN``,
    ``TRITON_AVAILABLE``), lowercased: a flag word (has/available/installed/importable) among their parts."""
    names: set[str] = set()
    for node in ast.walk(test):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        lowered = name.lower()
        if lowered and _PRESENCE_WORD.search(lowered):
            names.add(lowered)
    return names


def presence_flag_for(module: str, names: list[set[str]]) -> str | None:
    """The enclosing test's flag that says ``module``'s package is present, or None.

    ``_has_triton = _triton_version_at_least("2.2")`` then ``if _has_triton: import triton`` (torchrl 0.14
    modules/tensordict_module/_rnn_triton.py, #22 blind round 34): the import runs only where the flag found
    the package, as under ``is_triton_available()``. The flag must name the package (``triton`` inside
    ``_has_triton``): ``if has_bias:`` says nothing about an import under it.
    """
    root = module.split(".")[0].lower().strip("_")
    if len(root) < PRESENCE_NAME_MIN:
        return None
    for group in names:
        for name in group:
            if root in name:
                return name
    return None


def names_cuda_provider(node: ast.Compare) -> bool:
    """``provider in ("CUDAExecutionProvider", ...)`` (transformers 5.24 exporters/runners/runner_onnx.py):
    a branch on the ONNX Runtime session's device, taken only where that NVIDIA provider runs."""
    return any(
        isinstance(sub, ast.Constant) and sub.value in ORT_CUDA_PROVIDERS
        for part in (node.left, *node.comparators)
        for sub in ast.walk(part)
    )


def skips_cuda(value: ast.expr) -> bool:
    """An ``or`` operand that is false only on CUDA (``x.device.type != "cuda"``): the operands after it
    run only there."""
    if not (isinstance(value, ast.Compare) and len(value.ops) == 1):
        return False
    if not isinstance(value.ops[0], ast.NotEq | ast.IsNot):
        return False
    return any(isinstance(p, ast.Constant) and p.value == "cuda" for p in (value.left, value.comparators[0]))


def accelerator_query(value: ast.expr) -> bool:
    """``get_current_accelerator()``, ``torch.accelerator.current_accelerator()``: the machine's device."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    word = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return "accelerator" in word.lower()


_OTHER_BACKENDS = frozenset({"gloo", "mpi", "xccl", "ccl", "hccl"})


def backend_menu(value: ast.AST) -> list[ast.Constant]:
    """The items of a literal list of torch.distributed backends naming NCCL and another (``["nccl",
    "gloo", "xccl"]``): a menu to choose from, none of them chosen here. Empty for anything else."""
    items = value.elts if isinstance(value, ast.List | ast.Tuple | ast.Set) else []
    names = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
    if "nccl" not in names or not names & _OTHER_BACKENDS:
        return []
    return [i for i in items if isinstance(i, ast.Constant)]


def _no_device(test: ast.expr) -> bool:
    """``device is None``: no device given, the default (CPU) one."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _mps_bool(test: ast.BoolOp) -> bool | None:
    """``device is None or device.type != "mps"`` (transformers 5.24's compute_dtype in vit_mae, rt_detr):
    false on MPS when every part is; ``device is None`` is false there too, given another part tests MPS."""
    parts = [mps_test(value) for value in test.values]
    if all(part is None for part in parts):
        return None
    parts = [
        False if part is None and _no_device(v) else part for part, v in zip(parts, test.values, strict=True)
    ]
    if isinstance(test.op, ast.Or):
        return True if True in parts else False if all(p is False for p in parts) else None
    return False if False in parts else True if all(parts) else None


_TRY_LINE = re.compile(r"try[ \t]*:")
_IMPORT_HANDLER = re.compile(r"except[ \t(][^:]*\b(?:ImportError|ModuleNotFoundError)\b")
_BODY_IMPORT = re.compile(r"[ \t]+(?:import|from)[ \t]+\w")
_BODY_FLAG = re.compile(r"[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(True|False)[ \t]*(?:#.*)?$")


def import_flags(lines: list[str]) -> frozenset[str]:
    """Module-level names that record whether an optional import worked: set to True in a top-level
    ``try:`` that imports something, and to False in its ``except ImportError:`` (``te_installed`` beside
    ``import transformer_engine.pytorch as te``, composer 0.32 core/precision.py, #22 blind round 26).
    ``if te_installed and ...`` is an availability check like ``is_te_available()``. Read from the text,
    column-0 ``try``/``except`` lines only, so a long module parsed in parts still shows them."""
    set_true: set[str] = set()
    set_false: set[str] = set()
    block = ""  # "try" (a try body that imports), "try?" (one that has not imported yet), "except", ""
    pending: set[str] = set()
    for line in lines:
        if not line.strip() or line[0] in " \t#":
            if block and (flag := _BODY_FLAG.match(line)) is not None:
                wanted = "True" if block.startswith("try") else "False"
                if flag.group(2) == wanted:
                    (pending if block.startswith("try") else set_false).add(flag.group(1))
            elif block == "try?" and _BODY_IMPORT.match(line):
                block = "try"
            continue
        if _TRY_LINE.match(line):
            block, pending = "try?", set()
        elif block == "try" and _IMPORT_HANDLER.match(line):
            set_true |= pending
            block = "except"
        else:
            block = ""
    return frozenset(set_true & set_false)


def mps_test(test: ast.expr) -> bool | None:
    """Whether a branch test holds on Apple's MPS device (True), fails there (False), or says nothing (None).

    ``is_mps``, ``torch.backends.mps.is_available()``, ``x.device.type == "mps"`` hold on MPS; their
    negations (``not is_mps``, ``!= "mps"``) fail there.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = mps_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        return _mps_bool(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In | ast.NotIn):
        # `x.device.type in {"mps", "npu"}` (diffusers 0.42 guiders/adaptive_projected_guidance.py)
        group = test.comparators[0]
        items = group.elts if isinstance(group, ast.Set | ast.Tuple | ast.List) else []
        if any(isinstance(item, ast.Constant) and item.value == "mps" for item in items):
            return isinstance(test.ops[0], ast.In)
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        parts = (test.left, test.comparators[0])
        if any(isinstance(p, ast.Constant) and p.value == "mps" for p in parts):
            if isinstance(test.ops[0], (ast.Eq, ast.Is)):
                return True
            if isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
                return False
        return None
    node = test.func if isinstance(test, ast.Call) else test
    words: list[str] = []
    while isinstance(node, ast.Attribute):
        words.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        words.append(node.id)
    if not words:
        return None
    pieces = {piece.lower() for word in words for piece in word.split("_")}
    return True if "mps" in pieces else None


LEGACY_API_ERRORS = frozenset({"AttributeError", "TypeError"})
"""What an older torch raises for a device-generic API it lacks: a missing attribute (``torch.amp.
GradScaler`` before 2.3) or an unknown argument (``device=``)."""


def legacy_fallback(node: ast.Try, dotted: Callable[[ast.AST], str | None]) -> bool:
    """``try: torch.amp.GradScaler(device=d) except (AttributeError, TypeError): <the CUDA scaler>``.

    The try body calls torch's device-generic API and the handlers catch only the errors an older torch
    raises for it: the handler is that older torch's fallback, and on a torch with the generic API (every
    build for a non-CUDA target) it never runs (timm 1.0.15 utils/cuda.py NativeScaler, #22 blind round 13).
    A handler that catches anything else (RuntimeError, Exception) may run on the target, so it is none.
    """
    if not node.handlers:
        return False
    for handler in node.handlers:
        if handler.type is None:
            return False
        names = [n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)]
        if not names or not set(names) <= LEGACY_API_ERRORS:
            return False
    return calls_generic_api(node.body, dotted)


GENERIC_DEVICE_APIS = ("torch.amp.", "torch.autocast", "torch.accelerator.")
"""torch's device-generic entry points: the device is an argument (``torch.amp.GradScaler("xpu")``)."""


def calls_generic_api(body: list[ast.stmt], dotted: Callable[[ast.AST], str | None]) -> bool:
    """Whether the statements call one of torch's device-generic entry points (GENERIC_DEVICE_APIS)."""
    return any(
        isinstance(sub, ast.Call) and (dotted(sub.func) or "").startswith(GENERIC_DEVICE_APIS)
        for stmt in body
        for sub in ast.walk(stmt)
    )


_TORCH_VERSION = re.compile(
    r"__version__|TORCH_VERSION|torch_version|is_torch_(?:version|greater)", re.IGNORECASE
)


def legacy_branch(node: ast.If, dotted: Callable[[ast.AST], str | None]) -> bool:
    """``if <torch is new enough>: torch.amp.GradScaler(device=d, ...) else: torch.cuda.amp.GradScaler(...)``.

    The body calls torch's device-generic API under a test of torch's version; the ``else`` is what an older
    torch runs, and every torch build for a non-CUDA target has that API (skrl 2.1's agents:
    ``if version.parse(torch.__version__) >= version.parse("2.4"):``, #22 blind round 61). The same reading
    as legacy_fallback's ``try``/``except AttributeError``.
    """
    if not node.orelse or _TORCH_VERSION.search(ast.unparse(node.test)) is None:
        return False
    return calls_generic_api(node.body, dotted)


def is_main_check(test: ast.AST) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def is_arch_list(value: str) -> bool:
    """``8.0;9.0+PTX`` / ``7.5 8.6``: versions, each pair split by spaces or one ``;`` (spaces around it).

    Split in one pass rather than matched by ``(\\s*[; ]\\s*\\d+...)*``, which tries every way to
    divide a long run of spaces between its two ``\\s*`` (16 KB took seconds).
    """
    parts = _ARCH_SEPARATORS.split(value.strip())
    versions, separators = parts[0::2], parts[1::2]
    return all(_ARCH.fullmatch(v) for v in versions) and all(
        sep.count(";") <= 1 and (";" in sep or " " in sep) for sep in separators
    )


_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_ARRAY_BACKEND_WORDS = _BACKEND_WORDS | {"cuda", "cupy", "gpu"}
"""Class-name parts of a device backend: CuPy runs only on CUDA or ROCm GPUs."""


def backend_class_test(node: ast.AST) -> bool:
    """``isinstance(ops, CupyOps)`` (thinc 9.1 util.py): a test against a class named for a device backend
    branches per device, like ``ops.device_type == "gpu"``. Class names are read by CamelCase parts."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"):
        return False
    if len(node.args) != 2:
        return False
    classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
    for cls in classes:
        name = cls.id if isinstance(cls, ast.Name) else cls.attr if isinstance(cls, ast.Attribute) else ""
        if any(part.lower() in _ARRAY_BACKEND_WORDS for part in _CAMEL_PART.findall(name[:200])):
            return True
    return False


def names_backend(identifier: str) -> bool:
    """``is_intel_xpu``, ``MPS``, ``hip``: an identifier with a device backend as one of its parts."""
    return any(part.lower() in _BACKEND_WORDS for part in identifier.split("_"))


COLLECTIVES = frozenset(
    {
        "all_reduce",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_object",
        "all_to_all",
        "all_to_all_single",
        "barrier",
        "broadcast",
        "broadcast_object_list",
        "gather",
        "reduce",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "scatter",
    }
)
"""torch.distributed collectives: each raises "Default process group has not been initialized" without
``init_process_group`` (https://pytorch.org/docs/stable/distributed.html)."""


def calls_collective(body: list[ast.stmt], dotted: Callable[[ast.AST], str | None]) -> bool:
    """Whether every call of a function reaches a torch.distributed collective: one of the body's own
    statements (not under a condition) with no ``return`` or ``raise`` before it. Such a function is for
    multi-process runs; a single-process call raises at the collective, on CUDA too. (demucs'
    ``average_metric`` builds its buffer on 'cuda' and all-reduces it, #22 blind round 16; demucs'
    ``distrib.average`` returns early for a dict and stays a function every run calls.)"""
    for index, statement in enumerate(body):
        value = statement.value if isinstance(statement, ast.Expr | ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Call):
            name = dotted(value.func) or ""
            module, _, function = name.rpartition(".")
            if module != "torch.distributed" or function not in (*COLLECTIVES, "init_process_group"):
                continue
            # Only then are the statements before it walked (most functions have no collective).
            before = body[:index]
            if any(_leaves(statement) and not _single_process_exit(statement) for statement in before):
                return False
            # A process group's set-up is the program's own start (a training main that calls it first runs
            # multi-process every time), unless a single-process branch has left before it (DETR).
            return function != "init_process_group" or any(map(_leaves, before))
    return False


_SINGLE_PROCESS_TEST = re.compile(
    r"is_initialized|is_dist|dist_avail|world_size|is_distributed|WORLD_SIZE|SLURM_PROCID|LOCAL_RANK",
    re.ASCII,
)
"""What a test asks when it lets a single-process run out of a collective's function (DETR's util/misc.py,
copied into GroundingDINO and its kin: ``if not is_dist_avail_and_initialized(): return``)."""


def _single_process_exit(statement: ast.stmt) -> bool:
    """``if not is_dist_avail_and_initialized(): return``, ``if world_size < 2: return x``, or DETR's
    ``init_distributed_mode`` chain (``if "WORLD_SIZE" in os.environ: ... elif "SLURM_PROCID" in
    os.environ: ... else: ...; return``): an exit that only a single-process run takes, so the collective
    (or the process group's set-up) after it still makes the rest multi-process only.

    GroundingDINO 0.4's ``SmoothedValue.synchronize_between_processes`` returns so and then builds its
    buffer with ``device="cuda"`` and all-reduces it; its ``init_distributed_mode`` calls
    ``torch.cuda.set_device`` before ``init_process_group`` (#22 blind round 37): a single-device run
    reaches neither. An exit on any other test (``if isinstance(x, dict): return``), or one that raises,
    stays an exit.
    """
    if not isinstance(statement, ast.If) or _SINGLE_PROCESS_TEST.search(ast.unparse(statement.test)) is None:
        return False
    return not any(isinstance(node, ast.Raise) for node in ast.walk(statement))


def _leaves(statement: ast.stmt) -> bool:
    """Whether a statement can leave the function: a ``return`` or ``raise`` in it (nested definitions
    aside)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return | ast.Raise):
            return True
        if node is not statement and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def guards_rest(statement: ast.stmt) -> bool:
    """A guard clause: the statements after it in its block run only when its test let them.

    ``if test: ...; return`` (or ``raise``, ``continue``, ``break``) with no ``else``, and an ``assert``
    that compares a device with a device type (``assert device == 'cuda'``: the CUDA side of a device
    switch). ``assert torch.cuda.is_available()`` is not one: it states what the whole program needs,
    so on another device the program stops there and what follows keeps its findings.
    """
    if isinstance(statement, ast.Assert):
        return any(
            isinstance(sub, ast.Compare)
            and any(
                isinstance(part, ast.Constant) and part.value in DEVICE_TYPES
                for part in (sub.left, *sub.comparators)
            )
            for sub in ast.walk(statement.test)
        )
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and isinstance(statement.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
    )


def requires_cuda(statement: ast.stmt) -> bool:
    """``if not torch.cuda.is_available(): raise ...``: the program needs CUDA and stops without it.

    Not a branch to another device (``if not is_amd(): return``): off CUDA nothing after it runs, so the
    CUDA-only code after it stays code to change.
    """
    if not isinstance(statement, ast.If) or not isinstance(statement.body[-1], ast.Raise):
        return False
    test = ast.unparse(statement.test)
    return "cuda.is_available" in test or "cuda.device_count" in test


def swallows_errors(handler: ast.ExceptHandler) -> bool:
    """A handler catching every error (bare, ``Exception``, ``BaseException``) that never re-raises."""
    broad = handler.type is None or (
        isinstance(handler.type, ast.Name) and handler.type.id in ("Exception", "BaseException")
    )
    return broad and not any(isinstance(sub, ast.Raise) for sub in ast.walk(handler))


_CUDA_REFUSALS = frozenset({"AssertionError"})
"""What a CUDA call raises on a torch built without CUDA (the ROCm-less XPU, MPS and CPU builds):
``AssertionError: Torch not compiled with CUDA enabled`` (torch/cuda/__init__.py's _lazy_init). A
``RuntimeError`` ("No CUDA GPUs are available") comes only from a CUDA build with no GPU, so ``except
RuntimeError`` alone does not catch it there (#22 blind round 3)."""


def catches_cuda_refusal(handler: ast.ExceptHandler) -> bool:
    """A handler naming ``AssertionError`` (alone or in a tuple) that never re-raises: SpanMarker 1.8's
    ``try_cuda``, ``try: return self.cuda(device) except (AssertionError, RuntimeError): return self`` (#22
    blind round 184), leaves the model where it is when CUDA is not there."""
    return bool(_caught_names(handler) & _CUDA_REFUSALS) and not any(
        isinstance(sub, ast.Raise) for sub in ast.walk(handler)
    )


def _caught_names(handler: ast.ExceptHandler) -> set[str]:
    """The exception names a handler catches: ``except TypeError`` or ``except (AssertionError, X)``."""
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return {name.id for name in names if isinstance(name, ast.Name)}


def tolerates_failure(handler: ast.ExceptHandler) -> bool:
    """A broad handler with a way out that does not raise: ``except Exception as e: if ALLOW_ERRORS:
    print(e); ext_modules = [] else: raise e`` (sam2 1.1.0 setup.py) lets the install continue."""
    broad = handler.type is None or (
        isinstance(handler.type, ast.Name) and handler.type.id in ("Exception", "BaseException")
    )
    return broad and not _always_raises(handler.body)


def _always_raises(block: list[ast.stmt]) -> bool:
    """Every path through ``block`` ends in a ``raise`` (a top-level raise, or both arms of an ``if``)."""
    for stmt in block:
        if isinstance(stmt, ast.Raise):
            return True
        if (
            isinstance(stmt, ast.If)
            and stmt.orelse
            and _always_raises(stmt.body)
            and _always_raises(stmt.orelse)
        ):
            return True
    return False


def catches_dtype_refusal(handler: ast.ExceptHandler) -> bool:
    """A handler naming ``TypeError`` (alone or in a tuple) with a way out that does not raise: MPS refuses
    float64 with ``TypeError: Cannot convert a MPS Tensor to float64 dtype`` (pytorch/pytorch#122602), and
    toto-ts 0.2.0's scaler casts to float32 there instead. A broad ``except Exception`` is not enough: it
    wraps whole functions to log any failure, not a dtype's."""
    return "TypeError" in _caught_names(handler) and not _always_raises(handler.body)


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = [n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)]
    names += [n.attr for n in ast.walk(handler.type) if isinstance(n, ast.Attribute)]
    return any(
        n in ("ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError") for n in names
    )


def backend_argument(node: ast.Call) -> str | None:
    for kw in node.keywords:
        if kw.arg == "backend" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def ptx_detail(text: str) -> tuple[str, ...]:
    specific = sorted(set(re.findall(r"\b(wgmma|setmaxnreg|tcgen05|cp\.async\.bulk)\b", text)))
    return tuple(f"arch_specific={word}" for word in specific)


_NOT_ACCELERATORS = frozenset({"cpu", "auto", "meta"})


def _device_value(node: ast.AST) -> str | None:
    """``"mps"`` or ``torch.device("mps")``: the device name a selection branch yields, else None."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def branch_value(statements: list[ast.stmt]) -> tuple[str, str] | None:
    """A selection branch: one ``name = "<device>"`` or ``return "<device>"`` -> (where, device)."""
    if len(statements) != 1:
        return None
    statement = statements[0]
    if isinstance(statement, ast.Return) and statement.value is not None:
        value = _device_value(statement.value)
        return ("return", value) if value is not None else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        value = _device_value(statement.value)
        return (ast.dump(statement.targets[0]), value) if value is not None else None
    return None


PLACED = "placed"
"""A selection branch that moves the model itself (``model.cuda()``, ``model.to("mps")``) instead of naming a
device for later."""


def _selection_branch(statements: list[ast.stmt]) -> tuple[str, str] | None:
    """A selection branch with other statements beside its one device (a log line, a probe of the GPU's
    name): backgroundremover 0.4.5's ``DEVICE = torch.device('cuda:0')`` after ``print``s, manga-ocr 0.1.16's
    ``self.model.cuda()`` / ``self.model.to("mps")`` (#22 blind rounds 98 and 106). One device per branch,
    else None."""
    found = branch_value(statements)
    if found is not None:
        return found
    picks: list[tuple[str, str]] = []
    for statement in statements:
        if isinstance(statement, (ast.Return, ast.Assign)):
            one = branch_value([statement])
            if one is not None and one[1].split(":")[0] in DEVICE_WORDS:
                picks.append(one)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if isinstance(call.func, ast.Attribute) and call.func.attr == "cuda" and not call.args:
                picks.append((PLACED, "cuda"))
            elif isinstance(call.func, ast.Attribute) and call.func.attr == "to" and call.args:
                value = _device_value(call.args[0])
                if value is not None and value.split(":")[0] in DEVICE_WORDS:
                    picks.append((PLACED, value))
    return picks[0] if len(picks) == 1 else None


def selection_chain(node: ast.If | ast.IfExp) -> tuple[list[ast.expr], list[str]] | None:
    """An auto device selection: its tests and the devices it can yield, or None.

    ``"cuda" if cuda.is_available() else "mps" if mps.is_available() else "cpu"`` (F5-TTS) and the
    ``if/elif/else`` form assigning or returning one device per branch (bark's ``_grab_best_device``).
    A chain that enumerates two or more accelerators counts (#22 blind round 6): one that names MPS but
    not XPU has been told which backends the project supports. A plain ``"cuda" if ... else "cpu"`` is
    returned too, but the scanner keeps it only where it is the code's own device (python
    ``_Visitor._own_device``) and the project takes no device from its caller (scan._caller_devices):
    elsewhere it is a CUDA default any device passes through (whisper, minGPT).
    """
    tests: list[ast.expr] = []
    devices: list[str] = []
    where: set[str] = set()
    current: ast.AST = node
    while True:
        if isinstance(current, ast.IfExp):
            value = _device_value(current.body)
            if value is None:
                return None
            tests.append(current.test)
            devices.append(value)
            current = current.orelse
            continue
        if isinstance(current, ast.If):
            branch = _selection_branch(current.body)
            if branch is None:
                return None
            where.add(branch[0])
            tests.append(current.test)
            devices.append(branch[1])
            if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
                current = current.orelse[0]
                continue
            last = _selection_branch(current.orelse)
            if last is None and where == {PLACED}:
                last = (PLACED, "cpu")  # a model not moved stays on the CPU
            if last is None:
                return None
            where.add(last[0])
            devices.append(last[1])
            break
        value = _device_value(current)
        if value is None:
            return None
        devices.append(value)
        break
    accelerators = {name.split(":")[0] for name in devices} - _NOT_ACCELERATORS
    if len(where) > 1 or not is_device_menu(devices):
        return None
    if len(accelerators) < 2 and not (accelerators == {"cuda"} and len(devices) == 2):
        return None
    return tests, devices


def _selection_result(tests: list[ast.expr], devices: list[str]) -> tuple[list[ast.expr], list[str]] | None:
    accelerators = {name.split(":")[0] for name in devices} - _NOT_ACCELERATORS
    if len(accelerators) < 2 or not is_device_menu(devices):
        return None
    return tests, devices


def returns_selection(body: list[ast.stmt]) -> tuple[list[ast.If], list[ast.expr], list[str]] | None:
    """A function that returns the first available device: ``if cuda: return "cuda"`` ... ``return "cpu"``.

    The early-return form of ``selection_chain`` (``if``/``elif`` or consecutive ``if`` statements, each
    branch one ``return "<device>"``, then a last ``return "<device>"``): its ``if`` statements, tests
    and devices, or None.
    """
    if len(body) < 2 or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    last = _device_value(body[-1].value)
    start = len(body) - 1
    while start > 0 and isinstance(body[start - 1], ast.If):
        start -= 1
    run = [statement for statement in body[start:-1] if isinstance(statement, ast.If)]
    if last is None or not run:
        return None
    tests: list[ast.expr] = []
    devices: list[str] = []
    for statement in run:
        current: ast.If | None = statement
        while current is not None:
            branch = branch_value(current.body)
            if branch is None or branch[0] != "return":
                return None
            tests.append(current.test)
            devices.append(branch[1])
            if not current.orelse:
                current = None
            elif len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
                current = current.orelse[0]
            else:
                return None
    found = _selection_result(tests, [*devices, last])
    return (run, *found) if found is not None else None


GENERIC_KEYS = frozenset({"default", "CompositeExplicitAutograd", "CompositeImplicitAutograd"})
"""torch.library dispatch keys whose kernel serves every device: ``"default"`` is CompositeExplicitAutograd
(torch.library.impl docs), a torch-op implementation that runs wherever its inputs live."""


def generic_op(name: str | None, node: ast.Call) -> str | None:
    """The op a call registers a device-generic implementation for, or None.

    ``torch.library.impl("quanto::unpack", "default")`` (optimum-quanto 0.2.7), or a
    ``torch.library.custom_op`` with no ``device_types``: the op has a torch implementation for every
    device, so a device's compiled kernel for it is a fast path (#22 blind round 12).
    """
    if name == "torch.library.custom_op":
        if any(kw.arg == "device_types" for kw in node.keywords):
            return None
        first = node.args[0] if node.args else None
        named = isinstance(first, ast.Constant) and isinstance(first.value, str)
        return first.value if named else "custom_op"  # type: ignore[union-attr]
    if name != "torch.library.impl" or not node.args:
        return None
    given = [*node.args[1:2], *(kw.value for kw in node.keywords if kw.arg == "types")]
    keys = given[0] if given else None
    values = keys.elts if isinstance(keys, (ast.List, ast.Tuple)) else [keys]
    texts = {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    op = node.args[0]
    if texts & GENERIC_KEYS and isinstance(op, ast.Constant) and isinstance(op.value, str):
        return op.value
    return None


def module_assignment(trees: list[ast.Module], name: str) -> ast.expr | None:
    """The value a module's top level last binds to ``name`` (``requirements = [...]``), or None."""
    value: ast.expr | None = None
    for tree in trees:
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
            ) or (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.target.id == name
            ):
                value = statement.value
    return value


def requirement_strings(value: ast.expr) -> list[ast.Constant]:
    """The string literals of a requirements list (``[...]``, ``(...)``, ``a + [...]``, an extras dict).

    Only literal shapes: a list built by a call (``read("requirements.txt")``) names files, not
    requirements, and is left alone.
    """
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return [e for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return requirement_strings(value.left) + requirement_strings(value.right)
    if isinstance(value, ast.Dict):
        return [c for v in value.values for c in requirement_strings(v)]
    return []


def flag_attribute(test: ast.expr) -> str | None:
    """The option a branch tests (``if args.use_bnb_linear:``, ``if args.x is not None:``), or None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        other = test.comparators[0]
        if not (
            isinstance(test.ops[0], ast.IsNot) and isinstance(other, ast.Constant) and other.value is None
        ):
            return None
        test = test.left
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        return test.attr
    return None


def imported_module(relative: str, module: str | None, level: int) -> str | None:
    """The dotted name a ``from`` import names, relative ones resolved against the file's package."""
    if not level:
        return module
    parts = relative.removesuffix(".py").split("/")[:-1]
    if parts and parts[0] == "src":
        parts = parts[1:]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, module] if module else base) or None


def refuses_wave64(node: ast.If) -> bool:
    """``if warp != 32: raise RuntimeError("... supports wave32 (RDNA) GPUs only")`` (exllamav3 0.0.x's
    ``maybe_set_rocm_arch_env``, #22 blind round 206), or ``if props.warp_size == 64: raise``: a refusal of
    the AMD GPUs that run 64-lane wavefronts, before the kernels that assume 32 lanes run."""
    if not (node.body and isinstance(node.body[-1], ast.Raise)):
        return False
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    named = test.left.id if isinstance(test.left, ast.Name) else getattr(test.left, "attr", "")
    right = test.comparators[0]
    if "warp" not in named.lower() and "wave" not in named.lower():
        return False
    if not (isinstance(right, ast.Constant) and isinstance(right.value, int)):
        return False
    return (isinstance(test.ops[0], ast.NotEq) and right.value == 32) or (
        isinstance(test.ops[0], ast.Eq) and right.value == 64
    )


_VERSION_READERS = frozenset({"int", "float", "Version", "parse", "LooseVersion", "StrictVersion"})


def parses_cuda_version(node: ast.Call) -> bool:
    """``torch.version.cuda.split(".")``, ``float(torch.version.cuda)``, ``parse(torch.version.cuda)``: a
    read of the CUDA version that raises where it is None, on ROCm, XPU, MPS and CPU builds (lietorch
    0.6.2's ``__init__.py`` runs ``torch.version.cuda.split(".")`` at import, #22 blind round 192).
    ``torch.version.cuda or "0"`` is no such read."""
    func = node.func
    if isinstance(func, ast.Attribute) and _is_cuda_version(func.value):
        return True
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in _VERSION_READERS and bool(node.args) and _is_cuda_version(node.args[0])


def checks_cuda_version(node: ast.expr, op: ast.boolop) -> bool:
    """Whether this operand of an ``or``/``and`` lets the later ones run only where ``torch.version.cuda`` is
    set: ``torch.version.cuda is None or <parse>`` and ``not torch.version.cuda or ...``; ``torch.version.cuda
    is not None and <parse>`` and ``torch.version.cuda and ...`` (diffsynth 2.1.12's comfy-kitchen backend,
    #22 blind round 291: the parse after ``is None or`` never runs on a ROCm build)."""
    if isinstance(op, ast.Or):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return _is_cuda_version(node.operand)
        wanted: type[ast.cmpop] = ast.Is
    else:
        if _is_cuda_version(node):
            return True
        wanted = ast.IsNot
    return (
        isinstance(node, ast.Compare)
        and _is_cuda_version(node.left)
        and len(node.ops) == 1
        and isinstance(node.ops[0], wanted)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    )


def _is_cuda_version(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "cuda"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "version"
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == "torch"
    )


_LAUNCHER_VARIABLES = frozenset(
    {
        "LOCAL_RANK",
        "RANK",
        "WORLD_SIZE",
        "LOCAL_WORLD_SIZE",
        "SLURM_PROCID",
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
    }
)
"""What torchrun, torch.distributed.launch, Slurm and MPI set in each process they start."""


def launcher_test(test: ast.expr) -> bool:
    """``if "LOCAL_RANK" in os.environ:`` (or ``os.environ.get("SLURM_PROCID")``, alone or in an ``and``):
    a branch only a distributed launcher's processes take (pfns 0.4.2's ``init_dist``, whose NCCL process
    group and ``torch.cuda.set_device(rank)`` sit there, #22 blind round 196); one device's run skips it."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(_reads_launcher_variable(part) for part in parts)


def _reads_launcher_variable(part: ast.expr) -> bool:
    if (
        isinstance(part, ast.Compare)
        and len(part.ops) == 1
        and isinstance(part.ops[0], ast.In)
        and isinstance(part.left, ast.Constant)
        and part.left.value in _LAUNCHER_VARIABLES
    ):
        environ = part.comparators[0]
        return isinstance(environ, ast.Attribute) and environ.attr == "environ"
    if isinstance(part, ast.Call) and part.args and isinstance(part.args[0], ast.Constant):
        func = part.func
        reader = isinstance(func, ast.Attribute) and (
            func.attr == "getenv" or (func.attr == "get" and getattr(func.value, "attr", None) == "environ")
        )
        return reader and part.args[0].value in _LAUNCHER_VARIABLES
    return False


def tensor_dispatch(node: ast.If) -> bool:
    """``if input.is_cuda is False or debug: <torch path> else: <kernel>`` (lava-dl 0.6.0's neuron
    dynamics, #22 blind round 189): an if/else that picks an implementation by the tensor's own device.
    The branch that is not CUDA's runs on every other device, so the kernel is a fast path for CUDA tensors.
    A test on ``torch.cuda`` (the process, not a tensor) or an ``if`` without an ``else`` is not one."""
    if not node.orelse:
        return False
    return _tests_is_cuda(node.test)


def _tests_is_cuda(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp):
        return any(_tests_is_cuda(value) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tests_is_cuda(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        return _tests_is_cuda(test.left) and isinstance(right, ast.Constant) and isinstance(right.value, bool)
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "is_cuda"
        and not (isinstance(test.value, ast.Name) and test.value.id == "torch")
    )


def refuses_non_cuda_tensor(node: ast.If, trees: list[ast.Module]) -> bool:
    """``if not x.is_cuda: raise``, ``if any(not t.is_cuda for t in ts): _raise_unsupported(...)``: an ``if``
    whose body raises (itself, or by calling a function of the module that always does) unless a tensor is
    a CUDA one, the ``assert x.is_cuda`` of ``asserts_cuda_tensor`` written out."""
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        refused = asserts_cuda_tensor(test.operand)
    elif (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "any" and test.args
    ):
        inner = test.args[0]
        refused = (
            isinstance(inner, (ast.GeneratorExp, ast.ListComp))
            and isinstance(inner.elt, ast.UnaryOp)
            and isinstance(inner.elt.op, ast.Not)
            and asserts_cuda_tensor(inner.elt.operand)
        )
    else:
        refused = False
    if not refused or not node.body:
        return False
    last = node.body[-1]
    if isinstance(last, ast.Raise):
        return True
    call = last.value if isinstance(last, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return False
    name = call.func.id
    return any(
        isinstance(statement, ast.FunctionDef) and statement.name == name and _always_raises(statement.body)
        for tree in trees
        for statement in tree.body
    )


def asserts_cuda_tensor(test: ast.expr) -> bool:
    """``assert q.is_cuda``, ``assert all(t.is_cuda for t in ts)``, ``assert x.is_cuda and ...``: the
    statement fails unless a tensor is a CUDA one. ``assert not x.is_cuda`` (a CPU-only op) and an
    ``or`` that admits other devices (``x.is_cuda or x.device.type == "cpu"``) are not."""
    if isinstance(test, ast.BoolOp):
        return isinstance(test.op, ast.And) and any(asserts_cuda_tensor(value) for value in test.values)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "all" and test.args:
        inner = test.args[0]
        if isinstance(inner, (ast.GeneratorExp, ast.ListComp)):
            return asserts_cuda_tensor(inner.elt)
        return False
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        right = test.comparators[0]
        return asserts_cuda_tensor(test.left) and isinstance(right, ast.Constant) and right.value is True
    return isinstance(test, ast.Attribute) and test.attr == "is_cuda"
