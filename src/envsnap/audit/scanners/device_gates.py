"""Closed sets of device names that decide where a project can run, read from one statement.

Three shapes a device selection takes besides an availability ladder (``selection_chain``):

- a **gate** admits a list of device names and raises on any other: face-alignment's
  ``if 'cpu' not in device and 'cuda' not in device and 'mps' not in device: raise ValueError``,
  LitServe's ``if accelerator not in ["auto", "cpu", "mps", "cuda", "gpu", None]: raise``, nnU-Net's
  ``assert device in ['cpu', 'cuda', 'mps']`` (#22 blind rounds 54, 66, 72): a device left out is
  refused before any device code runs;
- a **discard** keeps the caller's device only when it is CUDA and replaces any other with the CPU:
  panns-inference's ``if device == 'cuda' and torch.cuda.is_available(): self.device = 'cuda'
  else: self.device = 'cpu'`` (round 70): an explicit ``device='xpu'`` silently runs on the CPU;
- a **default**: a ladder that runs only where the caller gave no device (``if self.device is None:``),
  PyOD's Hugging Face encoder, segment-geospatial's ``choose_device()``, WhisperSpeech's
  ``get_default_compute_device()`` (rounds 57, 71, 75): an explicit ``device='xpu'`` passes through,
  so the ladder's missing entry costs an argument, not an edit.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from envsnap.audit.scanners.python_shapes import DEVICE_WORDS, branch_value

Lookup = Callable[[str], ast.expr | None]
"""The literal a name is bound to (a module-level ``VALID = [...]``), or None."""


def _device_named(node: ast.AST) -> bool:
    """``device``, ``self.device``, ``preferred_device``, ``accelerator``, ``dev``: a device setting."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and node.args:
        node = node.args[0]  # `str(device)`
    if isinstance(node, ast.Attribute) and node.attr == "type":
        node = node.value  # `device.type`
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    name = name.lower().lstrip("_")
    return "device" in name or "accelerator" in name or name == "dev"


def _menu(node: ast.AST, lookup: Lookup) -> list[str] | None:
    """The device names of a literal list, tuple or set (or a name bound to one); None inside it is
    the unset value, not a device."""
    if isinstance(node, ast.Name):
        bound = lookup(node.id)
        node = bound if bound is not None else node
    # A table keyed by device (inseq 0.7.1's TORCH_BACKEND_DEVICE_MAP, {"cuda": ..., "mps": ...}, #22 blind
    # round 145): its keys are what `device not in TABLE` admits.
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) or items is None:
        return None
    names: list[str] = []
    for item in items:
        if not isinstance(item, ast.Constant):
            return None
        if item.value is None:
            continue
        if not isinstance(item.value, str):
            return None
        names.append(item.value)
    return names if is_gate_menu(names) else None


def is_gate_menu(names: list[str]) -> bool:
    """Device names only, a GPU among them (``gpu`` is the CUDA device in TotalSegmentator's and Lightning's
    vocabularies) and the CPU or another accelerator: a menu of devices, not one device tested."""
    # `'cpu-max'` (lyroi 0.3's all-cores CPU, #22 blind round 462) is a variant of the device it names.
    words = {name.split(":")[0].split("-")[0] for name in names}
    return len(words) >= 2 and bool(words & {"cuda", "gpu"}) and words <= DEVICE_WORDS


def _raises(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _admitted(test: ast.expr, lookup: Lookup, *, any_name: bool = False) -> list[str] | None:
    """``device in MENU`` (or ``device.type in``, ``... or isinstance(device, torch.device)``); with
    ``any_name``, whatever the tested name (a device validator's ``value``)."""
    for part in test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]:
        if (
            isinstance(part, ast.Compare)
            and len(part.ops) == 1
            and isinstance(part.ops[0], ast.In)
            and (any_name or _device_named(part.left))
        ):
            return _menu(part.comparators[0], lookup)
    return _equal_to_one_of(test)


def _equal_to_one_of(test: ast.expr) -> list[str] | None:
    """``device == "cuda" or device == "cpu"``: the menu spelled as comparisons (phasetorch 0.2.0's bundled
    L-BFGS, #22 stop 31, asserts it before every solve)."""
    return _menu_of_parts(test, ast.Or, ast.Eq, device_left=True)


def _menu_of_parts(
    test: ast.expr, joiner: type[ast.boolop], op: type[ast.cmpop], *, device_left: bool
) -> list[str] | None:
    """The names of a menu written one comparison per name, each between the device and a string, joined by
    ``joiner``: ``device == "a" or device == "b"`` (the device on the left), ``"a" not in device and "b" not
    in device`` (on the right)."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, joiner)):
        return None
    names: list[str] = []
    for part in test.values:
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], op)):
            return None
        device, name = (part.left, part.comparators[0]) if device_left else (part.comparators[0], part.left)
        if not (_device_named(device) and isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        names.append(name.value)
    return names if is_gate_menu(names) else None


def _refused(test: ast.expr, lookup: Lookup) -> list[str] | None:
    """The names a raising ``if`` lets through: ``device not in MENU``, or ``'cpu' not in device and
    'cuda' not in device and ...`` (each a substring test of the device string)."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.NotIn)
        and _device_named(test.left)
    ):
        return _menu(test.comparators[0], lookup)
    return _menu_of_parts(test, ast.And, ast.NotIn, device_left=False)


def _chain_gate(node: ast.If) -> list[str] | None:
    """``if device in ("cuda", "mps"): ... elif device != "cpu": raise``: an ``if``/``elif`` chain over
    one device setting whose last branch raises on what the others did not name."""
    names: list[str] = []
    current = node
    while True:
        test = _device_part(current.test)
        if isinstance(test, str):
            # `elif device.startswith("cuda:") and num_gpus > 0:` (BCEmbedding 0.1.5's models, #22 blind
            # round 147): a prefix of one device name.
            names.append(test)
            if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
                current = current.orelse[0]
                continue
            return names if _raises(current.orelse) and is_gate_menu(names) else None
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _device_named(test.left)):
            return None
        value = test.comparators[0]
        literals = value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [value]
        strings = [v.value for v in literals if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if len(strings) != len(literals):
            return None
        names += strings
        negated = isinstance(test.ops[0], (ast.NotEq, ast.NotIn))
        if negated and current is not node and _raises(current.body) and not current.orelse:
            return names if is_gate_menu(names) else None
        if negated or not isinstance(test.ops[0], (ast.Eq, ast.In)):
            return None
        if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
            current = current.orelse[0]
            continue
        return names if _raises(current.orelse) and is_gate_menu(names) else None


def _device_part(test: ast.expr) -> ast.expr | str | None:
    """The device test of a chain's link: the test itself, the one part of an ``and`` that tests the device
    (the rest, ``num_gpus > 0``, narrows the branch; a name it leaves out still reaches the raise), or the
    device name a ``device.startswith("cuda")`` prefix test admits."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    found: list[ast.expr | str] = []
    for part in parts:
        if isinstance(part, ast.Compare) and len(part.ops) == 1 and _device_named(part.left):
            found.append(part)
        elif (
            isinstance(part, ast.Call)
            and isinstance(part.func, ast.Attribute)
            and part.func.attr == "startswith"
            and _device_named(part.func.value)
            and len(part.args) == 1
            and isinstance(part.args[0], ast.Constant)
            and isinstance(part.args[0].value, str)
            and part.args[0].value.split(":")[0] in DEVICE_WORDS
        ):
            found.append(part.args[0].value.split(":")[0])
    if len(found) == 1:
        return found[0]
    return test if len(parts) == 1 else None


def gate_devices(node: ast.If | ast.Assert, lookup: Lookup) -> list[str] | None:
    """The device names a gate admits (every other one raises), or None when ``node`` is no gate."""
    if isinstance(node, ast.Assert):
        return _admitted(node.test, lookup)
    if _raises(node.body):
        refused = _refused(node.test, lookup)
        if refused is not None:
            return refused
    return _chain_gate(node)


def returned_gate(
    function: ast.FunctionDef | ast.AsyncFunctionDef, lookup: Lookup
) -> tuple[ast.If, list[str]] | None:
    """``if value in VALID: return value`` ... ``raise ValueError(...)``: a device validator's gate
    (TotalSegmentator's ``validate_device_type_api``), its ``if`` and the names it admits."""
    body = function.body
    if "device" not in function.name.lower() or not _raises(body):
        return None
    for statement in body[:-1]:
        if (
            isinstance(statement, ast.If)
            and statement.body
            and isinstance(statement.body[-1], ast.Return)
            and (names := _admitted(statement.test, lookup, any_name=True)) is not None
        ):
            return statement, names
    return _returned_ladder(body[:-1])


def _returned_ladder(statements: list[ast.stmt]) -> tuple[ast.If, list[str]] | None:
    """``if explicit.startswith("cuda"): ... return explicit`` / ``if explicit == "mps": return "mps"`` /
    ``if explicit == "cpu": return "cpu"`` and then ``raise ValueError("Unsupported device")`` (voxcpm
    2.0.3's ``resolve_runtime_device``, #22 blind round 198): one ``if`` per admitted device, each ending
    in a return, over one name; what none of them names reaches the raise. An ``if`` that tests no
    device word (``explicit is None or explicit == "auto"``, the automatic choice) admits nothing."""
    first: ast.If | None = None
    tested: set[str] = set()
    names: list[str] = []
    for statement in statements:
        if not (
            isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], ast.Return)
        ):
            continue
        found = _ladder_rung(statement.test)
        if found is None:
            continue
        subject, name = found
        tested.add(subject)
        names.append(name)
        first = first or statement
    if first is None or len(tested) != 1 or not is_gate_menu(names):
        return None
    return first, list(dict.fromkeys(names))


def _ladder_rung(test: ast.expr) -> tuple[str, str] | None:
    """``x == "mps"`` or ``x.startswith("cuda")`` on a plain name: the name and the device word."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, str)
    ):
        subject, word = test.left.id, test.comparators[0].value
    elif (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr == "startswith"
        and isinstance(test.func.value, ast.Name)
        and len(test.args) == 1
        and isinstance(test.args[0], ast.Constant)
        and isinstance(test.args[0].value, str)
    ):
        subject, word = test.func.value.id, test.args[0].value
    else:
        return None
    word = word.split(":")[0]
    return (subject, word) if word in DEVICE_WORDS else None


def discarded_devices(node: ast.If) -> list[str] | None:
    """``if device == 'cuda' [and ...]: x = 'cuda' else: x = 'cpu'``: the caller's device survives only
    when it is CUDA, any other becomes the CPU; the names it keeps, or None."""
    kept_names = ["cuda", "cpu"]
    parts = (
        node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else []
    )
    compared = [part for part in (parts or [node.test]) if _names_cuda(part)]
    if not compared:
        either = _either_device(node.test)
        if either is None:
            return None
        kept_names = either
    # One assignment per branch (python_shapes.branch_value), to the same name: a returned device is a
    # selection's, not a discard of the caller's.
    fallback = branch_value(node.orelse)
    if fallback is None or fallback[0] == "return" or fallback[1] != "cpu":
        return None
    kept = branch_value(node.body)
    if kept is not None and any(
        isinstance(part.ops[0], ast.In) for part in compared if isinstance(part, ast.Compare)
    ):
        # `if "cuda" in device: autocast_type = "cuda"` maps any CUDA string to a device type (neuraloperator
        # 2.0's Trainer keeps the caller's device beside it): only keeping the device itself is a discard.
        return None
    if kept is None:
        # `x = device`: the CUDA value the caller gave, kept as it is.
        statement = node.body[0] if len(node.body) == 1 else None
        if not (isinstance(statement, ast.Assign) and _device_named(unwrapped_device(statement.value))):
            return None
        kept = (ast.dump(statement.targets[0]), "cuda")
    if kept[1].split(":")[0] != "cuda" or kept[0] != fallback[0]:
        return None
    return kept_names


def _either_device(test: ast.expr) -> list[str] | None:
    """``(mps available and device == "mps") or (device == "cuda" and cuda available)`` (yolo5face 0.0.10's
    ``get_model``, #22 blind round 445): an ``or`` of ``==`` device comparisons, CUDA among them; the devices
    they keep, the CPU added. A negation anywhere turns the sense round: no discard."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)):
        return None
    names: list[str] = []
    for node in ast.walk(test):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return None
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            right = node.comparators[0]
            if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
                continue
            if not _device_named(node.left):
                continue
            if right.value not in DEVICE_WORDS:
                return None
            names.append(right.value)
    if "cuda" not in names:
        return None
    return [*dict.fromkeys(names), "cpu"]


def _names_cuda(test: ast.expr) -> bool:
    """``device == 'cuda'``, or ``'cuda' in device`` (gliclass 0.1.21's pipeline, #22 blind round 222: any
    CUDA device string, ``cuda:1`` too, is kept; ``'xpu'`` or ``'mps'`` becomes the CPU)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, right = test.left, test.comparators[0]
    if isinstance(test.ops[0], ast.Eq):
        return _device_named(left) and isinstance(right, ast.Constant) and right.value == "cuda"
    if isinstance(test.ops[0], ast.In):
        return isinstance(left, ast.Constant) and left.value == "cuda" and _device_named(right)
    return False


def unwrapped_device(value: ast.expr) -> ast.expr:
    """The argument of ``torch.device(x)``, else the value itself."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "device"
        and len(value.args) == 1
    ):
        return value.args[0]
    return value


def checks_cuda(test: ast.expr) -> bool:
    """``torch.cuda.is_available()``, ``is_torch_cuda_available()``: a call asking whether CUDA is there."""
    if not isinstance(test, ast.Call):
        return False
    func = test.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "cuda"
    ):
        name = f"cuda_{name}"
    name = name.lower()
    return "cuda" in name and "available" in name


def discarded_when_unavailable(node: ast.If) -> list[str] | None:
    """``if torch.cuda.is_available(): [if device is None: device = 'cuda'] else: device = 'cpu'``.

    layoutparser 0.3.4's Detectron2 and EfficientDet wrappers (#22 blind round 165) keep the caller's device
    where CUDA is there and replace it with the CPU anywhere else: ``device='mps'`` on a Mac runs on the CPU.
    The ``if`` branch must keep the setting (fill it only where unset); one that assigns it outright is a
    cuda-or-cpu selection, not a discard of the caller's choice.
    """
    if not checks_cuda(node.test):
        return None
    fallback = branch_value(node.orelse)
    if fallback is None or fallback[0] == "return" or fallback[1] != "cpu":
        return None
    target = node.orelse[0].targets[0] if isinstance(node.orelse[0], ast.Assign) else None
    if target is None or not _device_named(target) or len(node.body) != 1:
        return None
    inner = node.body[0]
    if not (isinstance(inner, ast.If) and not inner.orelse and unset_test(inner.test)[0]):
        return None
    test = inner.test
    tested = (
        test.left
        if isinstance(test, ast.Compare)
        else test.operand
        if isinstance(test, ast.UnaryOp)
        else test
    )
    if ast.unparse(tested) != ast.unparse(target):
        return None  # another setting filled in: not the one the else branch overwrites
    kept = branch_value(inner.body)
    if kept is None or kept[0] != fallback[0] or kept[1].split(":")[0] != "cuda":
        return None
    return ["cuda", "cpu"]


def kept_unless_cuda(node: ast.IfExp) -> ast.expr | None:
    """``device if torch.cuda.is_available() else "cpu"``: the kept value, or None.

    findcrack 0.1.8's pipeline (#22 stop 32) builds ``torch.device(device if torch.cuda.is_available() else
    "cpu")`` from its ``device`` argument: wherever CUDA is missing the caller's 'xpu' or 'mps' becomes the
    CPU. The expression twin of ``discarded_when_unavailable``; the scanner checks the value is the caller's.
    """
    if not checks_cuda(node.test):
        return None
    fallback = node.orelse
    if isinstance(fallback, ast.Call) and len(fallback.args) == 1 and not fallback.keywords:
        fallback = fallback.args[0]  # torch.device("cpu")
    if not (isinstance(fallback, ast.Constant) and fallback.value == "cpu"):
        return None
    return node.body if isinstance(node.body, (ast.Name, ast.Attribute)) else None


def cpu_unless_cuda(node: ast.If) -> ast.expr | None:
    """``if not torch.cuda.is_available(): [warn]; device = "cpu"``: the name set to the CPU, or None.

    dualcodec 0.4.2's ``Inference(device=...)`` (#22 blind round 228) resets whatever device the caller passed
    to the CPU wherever CUDA is missing: ``device='xpu'`` or ``'mps'`` runs on the CPU. A discard only where
    the name is the caller's (a parameter: the scanner checks); a local set to "cuda" just before is a
    cuda-or-cpu selection instead.
    """
    test = node.test
    if node.orelse or not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        return None
    if not checks_cuda(test.operand):
        return None
    # Log lines and warnings beside the assignment (`warnings.warn("CUDA is not available ...")`), and a
    # bare `return` after it. JoyRL 0.6.8's `Trainer._check_gpu` (#22 stop 32) sets three device settings
    # of its config (`self.cfg.device`, `interactor_device`, `learner_device`) to 'cpu' so, then returns.
    body = [
        statement
        for statement in node.body
        if not isinstance(statement, ast.Expr)
        and not (isinstance(statement, ast.Return) and statement.value is None)
    ]
    assigns = [statement for statement in body if isinstance(statement, ast.Assign)]
    if not assigns or len(assigns) != len(body):
        return None
    for statement in assigns:
        found = branch_value([statement])
        if found is None or found[1] != "cpu" or not _device_named(statement.targets[0]):
            return None
    return assigns[0].targets[0]


def unset_test(test: ast.expr) -> tuple[bool, bool]:
    """Whether the body, and whether the ``else``, of ``if <test>:`` runs only where the caller gave
    no device: ``device is None``, ``not device``, ``device == "auto"`` (and the negations for the ``else``).

    "auto" is the caller's "choose for me": UltraMS's ``--device`` (default "auto", any other string passed
    to the model) runs on 'xpu' as shipped. A setting closed by an enum elsewhere (infinity-emb's ``Device``:
    cpu, cuda, mps, ...) is not seen from here; the corpus moved 3 cells right and none wrong (stop 33).
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _device_named(test.operand):
        return True, False
    if _device_named(test) and not isinstance(test, ast.Call):
        return False, True
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _device_named(test.left)):
        return False, False
    value = test.comparators[0]
    unset = isinstance(value, ast.Constant) and (value.value is None or value.value == "auto")
    if not unset:
        return False, False
    op = test.ops[0]
    if isinstance(op, (ast.Is, ast.Eq)):
        return True, False
    if isinstance(op, (ast.IsNot, ast.NotEq)):
        return False, True
    return False, False


def is_default_call(node: ast.BoolOp) -> bool:
    """``device or get_device()``: what follows the caller's device runs only where it is unset."""
    return (
        isinstance(node.op, ast.Or)
        and _device_named(node.values[0])
        and not isinstance(node.values[0], ast.Call)
    )
