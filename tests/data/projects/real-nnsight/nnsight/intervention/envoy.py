"""The [`Envoy`][nnsight.intervention.envoy.Envoy] — nnsight's window into a running PyTorch model.

An [`Envoy`][nnsight.intervention.envoy.Envoy] wraps a `torch.nn.Module` and mirrors its submodule
tree, so every module in the model has a matching envoy reachable by the same
attribute path (``model.transformer.h[0].mlp``). Envoys are the objects you
interact with when tracing: they expose each module's live ``input``/``output``
during a forward pass, let you overwrite those values, read gradients, skip
whole modules, and reach individual operations inside a forward via
[`source`][nnsight.intervention.envoy.Envoy.source].

You open a trace with ``with model.trace(x):`` and, inside the block, read or
write envoy attributes as if the forward pass had paused at each module for you.
Capture a value with ``.save()`` to use it after the trace:

.. code-block:: python

    from nnsight.intervention.envoy import Envoy

    model = Envoy(my_module)

    with model.trace(x):
        hidden = model.layer1.output.save()   # captured mid-forward
        model.layer2.output[:] = 0            # overwrite layer2's output in place

    print(hidden.shape)                        # available after the block

Gradients are available the same way. Call ``.backward()`` on a captured value
as a context manager and, inside it, read ``.grad`` on tensors you captured
earlier in the forward — you can edit gradients too:

.. code-block:: python

    with model.trace(x):
        a1 = model.fc1.output
        loss = model.output.sum()
        with loss.backward():
            g = a1.grad.save()     # gradient flowing into fc1's output
            a1.grad = a1.grad * 2  # and it can be edited in place of autograd's

Locations must be read in execution order: asking for an earlier module's output
after a later one has already run raises
[`OutOfOrderError`][nnsight.intervention.interleaver.OutOfOrderError].
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator

import torch

from .. import deprecated
from ..util import apply

from ..tracing.hint import Object
from ..tracing.tracer import Tracer, WithBlockNotFoundError
from .interleaver import (
    EarlyStopException,
    Interleaver,
    Mediator,
)
from . import aliasing
from .batching import Batcher
from .editing import EditingTracer
from .eproperty import eproperty
from .source import Source, install_source
from .tracer import InterleavingTracer
from .util import first_input, replace_first_input


def traceable(method: Callable) -> Callable:
    """Make an Envoy method usable as a trace context.

    ``with envoy.method(...):`` traces the method (runs it interleaved with the
    block's interventions); ``envoy.method(...)`` just calls it. While already
    interleaving, it always just calls the method (we're inside a trace).
    """

    @functools.wraps(method)
    def wrapper(self: Envoy, *args: Any, **kwargs: Any) -> Any:
        fn = method.__get__(self, type(self))
        # Already inside a trace: just run the method — we're mid-interleave.
        if self.interleaver.interleaving:
            return method(self, *args, **kwargs)
        tracer = self.trace(*args, fn=fn, **kwargs)
        try:
            tracer.capture()
        except WithBlockNotFoundError:
            # Called directly (not as a `with` block): run it through interleave
            # so dispatch, device placement, and input prep still happen — same
            # path as trace(trace=False). Only edits apply (interleave adds them).
            return self.interleave(fn, *args, **kwargs)
        return tracer

    return wrapper


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    lines = [(spaces * " ") + line for line in lines]
    return first + "\n" + "\n".join(lines)


class Envoy:
    """Wraps a `torch.nn.Module` to expose and edit its values during a trace.

    One envoy mirrors one module and reads or overwrites that module's live
    ``input``/``output`` (and gradients) as the forward pass runs, driving those
    interventions through a shared [`Interleaver`][nnsight.intervention.interleaver.Interleaver].
    The child envoys mirror the module's submodule tree, so the whole model is
    reachable by attribute path from the root envoy. See the module docstring for
    the mental model.

    Attributes:
        path: The module's dotted location in the tree, e.g. ``"model.transformer.h.0"``.
            Every location the interleaver reads (``{path}.output``, ``{path}.skip``)
            is derived from it.
        interleaver: The [`Interleaver`][nnsight.intervention.interleaver.Interleaver]
            shared across the whole tree; it installs the controllers and routes values.
        _module: The wrapped `torch.nn.Module`.
        _edits: Default interventions registered by [`edit`][nnsight.intervention.envoy.Envoy.edit], replayed on every
            trace (a list of [`Mediator`][nnsight.intervention.interleaver.Mediator]).
        _parent: A weak reference to the envoy whose `_children` holds this one,
            or ``None`` on the root. Read it through [`parent`][nnsight.intervention.envoy.Envoy.parent].
        _children: The child envoys this envoy owns, in module order — one per
            module, so a module the tree already wraps elsewhere is not in it.
        _child_map: Every entry of the wrapped module's ``_modules``, by name and
            in module order, so an entry sharing its module with another keeps its
            own name. What indexing, iteration and the repr walk.
    """

    def __init__(
        self,
        module: torch.nn.Module,
        path: str = "model",
        interleaver: Interleaver | None = None,
        rename: dict[str | type, str | list[str]] | None = None,
        envoys: dict | None = None,
        parent: Envoy | None = None,
    ) -> None:
        # Weak, so no envoy keeps its ancestors (and the model) alive: the tree is
        # owned top-down through `_children`, and `del model` frees it by
        # refcounting. Set before the children are built, so it is in place
        # while they are.
        self._parent = weakref.ref(parent) if parent is not None else None
        self._module = module
        self.path = path
        self.interleaver = interleaver if interleaver is not None else Interleaver()
        # This tree's envoy for the module, so a later path to it aliases this one.
        self.interleaver.envoys[id(module)] = self
        # instrument installs the module's controller — the input/output handoffs and
        # the source/skip gate — registering this interleaver on the module.
        # (See Interleaver.instrument.)
        self.interleaver.instrument(self)

        # Default interventions registered via .edit(), replayed on every trace.
        self._edits: list[Mediator] = []

        # Module-name aliases (see `rename` / `aliasing.bind`). `_rename` is
        # the raw spec, inherited by children; `_aliases` maps each alias bound on
        # *this* envoy to the real path it resolved from (used by `__repr__`).
        self._rename = rename
        self._aliases: dict[str, str] = {}

        # Optional map choosing a custom Envoy subclass per child module (by module
        # type or path suffix); inherited by children so it applies all the way
        # down. See `_resolve_envoy_class`.
        self._envoys = envoys

        self._children: list[Envoy] = []
        self._child_map: dict[str, Envoy] = {}

        # `_modules`, not `named_children()`: the latter deduplicates by module
        # identity, so a ModuleList holding one module twice — or rebuilt from
        # blocks this tree already wraps — would lose entries torch still indexes.
        for name, child in list(module._modules.items()):
            if child is not None:
                self._add_envoy(name, child)

        # Children exist now, so multi-component alias paths (e.g. "h.0") resolve.
        aliasing.bind(self)

    #: Prefix for a submodule mounted under a name nnsight already serves.
    OVERLOAD_PREFIX = "E_"

    def _wrap_envoy(self, name: str, module: torch.nn.Module) -> Envoy:
        # Mirror a module already on self._module as an envoy child. __dict__.get
        # (not getattr) so this is safe to call from __getattr__.
        #
        # A submodule may be named after a value nnsight serves: every BERT-style
        # encoder has an `output` module. `.output` is the module's forward output
        # on every other module in the tree, so the submodule is what moves, to
        # `E_output`, keeping its own path. Moving the envoy is what avoids
        # overriding the descriptor per instance, which took a subclass
        # synthesized for that envoy; it belonged to no module, so it could not be
        # pickled, so such a model could not run remotely.
        attribute = name
        if not name.startswith("_") and inspect.isdatadescriptor(
            getattr(Envoy, name, None)
        ):
            attribute = f"{self.OVERLOAD_PREFIX}{name}"
        existing = self.__dict__.get(attribute)
        index = None
        if isinstance(existing, Envoy):
            # Replace at the replaced child's own index: appending instead would
            # shift every child after it, so `_children[i]` would name a different
            # module than `i` does on the wrapped module.
            if existing in self._children:
                index = self._children.index(existing)
            # The replaced module keeps its registration otherwise, so a later
            # path to it would serve the replacement's values.
            if self.interleaver.envoys.get(id(existing._module)) is existing:
                del self.interleaver.envoys[id(existing._module)]
        child_path = f"{self.path}.{name}"
        # A module the tree already holds under another path (a layer that a
        # wrapper keeps a second reference to, tied weights) gets no second envoy:
        # this name is an alias of the first, as torch's own named_modules lists
        # it once, so the module has one location and either spelling reads it.
        # `_child_map` still records the name, so the entry keeps its index.
        shared = self.interleaver.envoys.get(id(module))
        if shared is not None:
            envoy = shared
            if shared is not self:
                self._aliases[attribute] = shared.path
            if index is not None:
                del self._children[index]
        else:
            envoy = self._resolve_envoy_class(module, child_path)(
                module,
                path=child_path,
                interleaver=self.interleaver,
                rename=self._rename,
                envoys=self._envoys,
                parent=self,
            )
            if index is None:
                self._children.append(envoy)
            else:
                self._children[index] = envoy
            if attribute != name:
                # Record it the way `rename` records its own, so the repr labels the
                # child `E_output/output` and an alias cannot later claim the name.
                self._aliases[attribute] = name
                warnings.warn(
                    f"Module '{self.path}' has a submodule named '{name}', which "
                    f"nnsight already serves on every module. The submodule is "
                    f"'.{attribute}' here; '.{name}' stays the module's output."
                )
        # A name the module itself holds is an entry of the tree; one reached any
        # other way (a property like transformers' `base_model`) is just a spelling.
        if self._module._modules.get(name) is module:
            self._child_map[name] = envoy
        object.__setattr__(self, attribute, envoy)
        return envoy

    def _named_children(self) -> list[tuple[str, Envoy]]:
        # (name, child) for everything under this envoy: the wrapped module's own
        # entries in module order, then children attached outside it
        # (TransformersModel's `generator`), which have no entry to be ordered by.
        named = list(self._child_map.items())
        bound = {id(child) for child in self._child_map.values()}
        named.extend(
            (child.path.rsplit(".", 1)[-1], child)
            for child in self._children
            if id(child) not in bound
        )
        return named

    def _add_envoy(self, name: str, module: torch.nn.Module) -> Envoy:
        # Register a (possibly new) module on self._module, then mirror it.
        self._module.add_module(name, module)
        return self._wrap_envoy(name, module)

    def _resolve_envoy_class(self, module: torch.nn.Module, path: str) -> type["Envoy"]:
        """The [`Envoy`][nnsight.intervention.envoy.Envoy] class to wrap ``module`` (at ``path``) with.

        `_envoys` is ``None`` (the base `Envoy`), a single class for every module,
        or a dict tried in this order: a ``torch.nn.Module`` subclass key on the
        module's MRO; a dotted path-suffix key (``"attn"``, ``"transformer.h"``,
        ``"layers.*"``) on the native path; the same on each other spelling of the
        path under the ``rename`` aliases (see `aliasing.spellings`), so one map written
        in aliased names (``{"layers.0.self_attn": Attn}``) serves every
        architecture the rename covers. Nothing matching gives the base `Envoy`.
        The class is chosen once, here, as the envoy is built.
        """
        mapping = self._envoys
        if mapping is None or isinstance(mapping, type):
            return mapping or Envoy
        for cls in type(module).__mro__:
            if cls in mapping:
                return mapping[cls]
        for candidate in aliasing.spellings(self._rename, path, module):
            for key, envoy_cls in mapping.items():
                if isinstance(key, str) and aliasing.path_ends_with(candidate, key):
                    return envoy_cls
        return Envoy

    @property
    def parent(self) -> Envoy | None:
        """The envoy whose children include this one, or ``None`` on the root.

        A module the tree reaches by two paths has one envoy, and its parent is
        the envoy at the first path; an alias (``rename=``) is not a child, so it
        leaves the parent alone.
        """
        return self._parent() if self._parent is not None else None

    @property
    def root(self) -> Envoy:
        """The top of the tree: the model envoy, reached by following [`parent`][nnsight.intervention.envoy.Envoy.parent]."""
        envoy = self
        while (parent := envoy.parent) is not None:
            envoy = parent
        return envoy

    def __setstate__(self, state):
        self.__dict__.update(state)
        # The parent link is not pickled (a weakref does not pickle). A parent in
        # the same payload re-links its children here, which also covers a child
        # whose parent was rebuilt first; the payload's top envoy has none.
        self.__dict__.setdefault("_parent", None)
        for child in self._children:
            child._parent = weakref.ref(self)

    def __getstate__(self) -> dict:
        # For serialization: tag the heavy/server-side objects as persistent so
        # they're referenced by id rather than serialized. The server resolves
        # them from its own model (Module:<path>) and interleaver (Interleaver).
        state = self.__dict__.copy()
        state.pop("_parent", None)
        state["interleaver"]._persistent_id = "Interleaver"
        state["_module"]._persistent_id = f"Module:{self.path}"
        return state

    def _update(self, module: torch.nn.Module) -> None:
        # Re-point an existing envoy tree at a new module (swapping meta weights
        # for real ones, or an adapter attached to or taken out of the module in
        # place). instrument() removes this path's old controller before
        # re-adding, and we recurse over children by name (as in __init__), so
        # modules shared across paths line up. Entries the new module lacks are
        # dropped and entries it gained are mirrored, so the tree is the module's
        # again; what persists is every envoy of a module that is still there,
        # with its edits, class and aliases.
        self.interleaver.envoys.pop(id(self._module), None)
        self._module = module
        self.interleaver.envoys[id(module)] = self
        # instrument re-installs the controller and the source/skip gate on the new
        # module (its own forward; the previous module's controller doesn't carry
        # over) — see Interleaver.instrument.
        self.interleaver.instrument(self)
        children = module._modules
        for name, child in self._named_children():
            # A child that isn't a submodule of the new module — e.g. a standalone
            # module added to the tree (TransformersModel's `generator`) — has nothing
            # to re-point at, so leave it as-is (it keeps its own module and controller).
            if children.get(name) is not None:
                child._update(children[name])
        for name in list(self._child_map):
            if children.get(name) is None:
                self._drop_envoy(name)
        for name, child in children.items():
            if child is not None and name not in self._child_map:
                # TODO: a gained entry gets its envoy class from `envoys=` but no
                # `rename=` alias: aliases bind in `__init__` (`_bind_aliases`)
                # only, as for any child wrapped after construction.
                self._wrap_envoy(name, child)
        # Back in module order, as `__init__` builds them.
        self._child_map = {name: self._child_map[name] for name in children if name in self._child_map}
        entries = list(dict.fromkeys(self._child_map.values()))
        kept = {id(entry) for entry in entries}
        self._children = entries + [child for child in self._children if id(child) not in kept]

    def _drop_envoy(self, name: str) -> None:
        # Forget the entry `name` of the wrapped module, which it no longer has:
        # the attribute it was mounted on and the aliases that reached it. The
        # envoy itself stays while another entry still shares its module.
        child = self._child_map.pop(name)
        attribute = name if self.__dict__.get(name) is child else f"{self.OVERLOAD_PREFIX}{name}"
        self.__dict__.pop(attribute, None)
        for alias, path in list(self._aliases.items()):
            if path == name or path.startswith(f"{name}."):
                del self._aliases[alias]
                self.__dict__.pop(alias, None)
        if any(entry is child for entry in self._child_map.values()):
            return
        self._children = [entry for entry in self._children if entry is not child]
        if self.interleaver.envoys.get(id(child._module)) is child:
            del self.interleaver.envoys[id(child._module)]

    def trace(
        self,
        *args: Any,
        fn: Any = None,
        backend: Any = None,
        tracer_cls: type[InterleavingTracer] | None = None,
        trace: bool = True,
        **kwargs: Any,
    ) -> InterleavingTracer:
        """Open a trace: a ``with`` block that runs the module and lets you read and
        edit its intermediate values.

        Inside the block, read an envoy's ``.output``/``.input`` to capture a value,
        or assign to it to overwrite what the module passes on. Mark a value with
        ``.save()`` to keep it past the block.

        Examples:
            >>> model = TransformersModel("openai-community/gpt2", dispatch=True)
            >>> with model.trace("Hello World"):
            ...     model.transformer.h[0].attn.output[0][:] = 0   # zero the attn output
            ...     output = model.output.save()
            >>> print(output)

        Args:
            *args: Arguments to pass to the tracer
            fn: What the trace runs, defaulting to the module's ``"__call__"``.
                Either a method name on this envoy or a bound callable. A subclass
                that drives the model through its own method points at it here —
                which is also how a plain [`NNsight`][nnsight.modeling.base.NNsight]
                subclass runs a driver that passes values through an attached
                standalone child. The [`traceable`][nnsight.intervention.envoy.traceable]
                decorator sets it, so ``model.generate(...)`` is
                ``trace(..., fn=self.generate)``.
            backend: What running the captured block means, defaulting to local
                execution. Set by ``remote=`` on the model classes that support it;
                see [`Backend`][nnsight.tracing.backend.Backend].
            tracer_cls: Tracer class to construct instead of the default
                [`InterleavingTracer`][nnsight.intervention.tracer.InterleavingTracer] — an
                extension point for a custom tracer.
            trace: If ``False``, bypass tracing — run the module directly on the
                inputs and return its output. A one-shot forward with no
                intervention: input prep, dispatch, and device placement still
                happen (via `interleave`), but no ``with`` block is captured.
            **kwargs: Keyword arguments to pass to the tracer

        Returns:
            An InterleavingTracer for this module, or — when ``trace=False`` —
            the module's output directly.
        """
        if fn is None:
            fn = "__call__"
        if not trace:
            # One-shot forward, no trace body — only registered edits apply
            # (interleave adds them).
            return self.interleave(fn, *args, **kwargs)
        if tracer_cls is None:
            tracer_cls = InterleavingTracer
        return tracer_cls(self, fn, *args, backend=backend, **kwargs)

    def edit(self, *, inplace: bool = False, backend: Any = None) -> EditingTracer:
        """Open an editing tracer: capture interventions and store them as defaults.

        The block is not executed against a live forward; instead the interventions
        it captures are stored and replayed on every later trace of the (edited)
        model. Clear them with [`clear_edits`][nnsight.intervention.envoy.Envoy.clear_edits].

        Examples:
            >>> model = TransformersModel("openai-community/gpt2", dispatch=True)
            >>> # The first layer's attention output will always be zeroed.
            >>> with model.edit() as (tracer, edited_model):
            ...     edited_model.transformer.h[0].attn.output[0][:] = 0

            >>> with model.trace("Hello World"):
            ...     output = model.output.save()          # original model, unedited
            >>> print(output)

            >>> with edited_model.trace("Hello World"):
            ...     edited_output = edited_model.output.save()   # edit applied
            >>> print(edited_output)

        Args:
            inplace: If ``False`` (default), store the edit on a shallow copy and
                leave this envoy clean, so the edited behavior is opt-in through
                the copy. If ``True``, store it on this envoy itself.
            backend: Backend for the underlying trace.

        Returns:
            An [`EditingTracer`][nnsight.intervention.editing.EditingTracer]. Entering it
                binds the tracer — for its ``iter`` API — and, when
                ``inplace=False``, the edited copy as well:
                ``with model.edit() as (tracer, edited):``. With ``inplace=True``
                only the tracer is bound.
        """
        # Trace a block but store it instead of running it: the captured
        # interventions become defaults replayed on every later trace (see
        # EditingTracer). inplace=False edits a shallow copy, leaving self clean.
        return EditingTracer(self, inplace=inplace, backend=backend)

    def clear_edits(self) -> None:
        """Drop every edit stored on this envoy, restoring its unedited behavior."""
        self._edits = []

    def session(self, backend: Any = None, tracer_cls: type[Tracer] | None = None) -> Tracer:
        """Open a session: a scope enclosing several traces that share values.

        Inside ``with model.session():`` you can open multiple ``with
        model.trace(...)`` blocks and pass values between them — a value read in
        one trace is available in a later trace *without* an explicit ``.save()``,
        because the session (not each individual trace) is the save boundary. Only
        values marked with `nnsight.save` survive past the session itself.
        Ordinary Python — loops, conditionals, building lists — runs natively in
        the session body.

        Examples:
            >>> with model.session():
            ...     with model.trace(x):
            ...         hidden = model.layer1.output      # no .save() needed
            ...     with model.trace(x):
            ...         out = (hidden * 2).save()         # `hidden` flows in
            >>> print(out)

        Args:
            backend: What runs the captured session block. Defaults to running it
                in place (which executes the nested traces as it reaches them).
            tracer_cls: Tracer class to construct instead of the default
                [`Tracer`][nnsight.tracing.tracer.Tracer] — an extension point for a
                custom session tracer.

        Returns:
            A [`Tracer`][nnsight.tracing.tracer.Tracer] acting as the session scope.
        """
        # A plain Tracer already captures the block, execs it as real Python (so
        # nested traces run as reached), and gates saves at its own — outermost —
        # boundary. That is exactly a session; no model state is needed here.
        if tracer_cls is None:
            tracer_cls = Tracer
        return tracer_cls(backend=backend)

    def _shallow_copy(self) -> Envoy:
        # A twin sharing this envoy's module/interleaver/children but with its own
        # _edits list, so editing the copy doesn't touch the original's defaults.
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._edits = list(self._edits)
        return copy

    @eproperty(key="input")
    def inputs(self, value: Any) -> Any:
        """The module's forward inputs as an ``(args, kwargs)`` tuple.

        Read or replace the whole input during a trace::

            with model.trace("Hello World"):
                args, kwargs = model.transformer.h[0].attn.inputs
        """
        return value

    @eproperty
    def input(self, value: Any) -> Object:
        """The module's first forward input (first positional, else first keyword).

        A convenience view over `inputs`; writing it repacks into the full
        ``(args, kwargs)`` the model expects::

            with model.trace("Hello World"):
                hidden_states = model.transformer.h[0].attn.input.save()
        """
        args, kwargs = value
        return first_input(args, kwargs)

    @input.postprocess
    def input(self, value: Any) -> Any:
        args, kwargs = Mediator.value(f"{self.path}.input")
        return replace_first_input(args, kwargs, value)

    @eproperty
    def output(self, value: Any) -> Object:
        """The module's forward output — read or replace it during a trace::

            with model.trace("Hello World"):
                attn = model.transformer.h[0].attn.output[0].save()
        """
        return value

    @property
    @deprecated("model.iter is deprecated; use tracer.iter instead.")
    def iter(self):
        """Deprecated: use ``tracer.iter``.

        An alias for ``tracer.iter[...]``; the iteration API lives on the tracer.
        """
        from .iterator import Iterations

        return Iterations()

    @deprecated("model.all() is deprecated; use tracer.all() instead.")
    def all(self):
        """Deprecated: use ``tracer.all()``."""
        from .iterator import Iterations

        # Build the range directly rather than via self.iter, so only the
        # model.all() deprecation warns (not model.iter as well).
        return Iterations()[:]

    def skip(self, replacement: Any) -> None:
        """Skip this module's execution, returning ``replacement`` as its output.

        The module's forward is not run; ``replacement`` is used in its place.

        Examples:
            >>> model = TransformersModel("openai-community/gpt2", dispatch=True)
            >>> with model.trace("Hello World"):
            ...     # Skip the first layer, passing its input through as its output.
            ...     model.transformer.h[0].skip(model.transformer.h[0].input)
            ...     output = model.output.save()
            >>> print(output)

        Args:
            replacement: The value to use as the module's output; must match the
                shape the module would return. Read it from anywhere — including
                this module's own ``.input``, which is offered before the skip gate.

        Returns:
            Nothing; the skip takes effect when the module runs.
        """
        # The skip controller is installed on every module up front (see __init__),
        # so the skip gate is offered whenever the module runs — this works even
        # when ``replacement`` was read from the module's own input before calling
        # skip. (nn.Module.__call__ binds `forward` before running its pre-hooks, so
        # a controller installed only now — after the input read resumes the worker
        # mid-pre-hook — would be too late for the already-bound forward.)
        Mediator.skip(f"{self.path}.skip", replacement)

    @property
    def source(self) -> Source:
        """Get the source code representation of the module.

        Examples:
            >>> model = TransformersModel("openai-community/gpt2", dispatch=True)
            >>> print(model.transformer.h[0].attn.source)   # list the operations
            >>> with model.trace("Hello World"):
            ...     attn = model.transformer.h[0].attn.source.attention_interface_1.output.save()

        Returns:
            A [`Source`][nnsight.intervention.source.Source] exposing operation-level access.
        """
        # Intermediate operations inside this module's forward, addressable as
        # source.{name}_{occurrence} (e.g. source.relu_0.output). A class-level
        # property, so it wins over the __getattr__ module fallthrough. Building
        # it permanently source-instruments the module (inert outside a trace).
        return Source(self, self.path, install_source(self))  # raises SourceNotAvailable


    def to(self, device: torch.device) -> Envoy:
        """Move the wrapped module to ``device`` (in place).

        Args:
            device: The device to move the module to.

        Returns:
            This envoy, for method chaining.
        """
        self._module.to(device)
        return self

    def cpu(self, *args: Any, **kwargs: Any) -> Envoy:
        """Move the wrapped module to the CPU (in place); return this envoy."""
        self._module.cpu(*args, **kwargs)
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Envoy:
        """Move the wrapped module to the GPU (in place); return this envoy."""
        self._module.cuda(*args, **kwargs)
        return self

    @property
    def device(self) -> torch.device | None:
        """The device of the module's first parameter, or ``None`` if it has none."""
        try:
            return next(self._module.parameters()).device
        except StopIteration:
            return None

    @property
    def devices(self) -> set[torch.device]:
        """The set of devices the module's parameters live on (empty if it has none)."""
        return {parameter.device for parameter in self._module.parameters()}

    #: The [`Batcher`][nnsight.intervention.batching.Batcher] class to batch with.
    #: Base default is the plain dim-0-stack [`Batcher`][nnsight.intervention.batching.Batcher]; a model whose batch
    #: layout differs (e.g. [`DiffusionBatcher`][nnsight.modeling.diffusion.DiffusionBatcher]
    #: for classifier-free-guidance doubling) overrides it with its subclass.
    _batcher_class: type["Batcher"] = Batcher

    def _batch_size(self, *inputs: Any, **kwargs: Any) -> int:
        """Number of batch rows an invoke's input contributes (0 if it has none).

        Base default: any input is a single row. Models that batch (e.g.
        [`TransformersModel`][nnsight.modeling.transformers.TransformersModel]) override this to
        report the true row count of a prompt / list / tensor.
        """
        return 1 if (inputs or kwargs) else 0

    def _batch(self, invokes: list[tuple], fn: Any) -> tuple:
        """Combine invokes' inputs into one ``(args, kwargs)`` for ``fn``.

        ``invokes`` is a list of ``(inputs, kwargs)``. Base default: pass a single
        invoke straight through; batching two or more requires a model that
        overrides this ([`TransformersModel`][nnsight.modeling.transformers.TransformersModel]).
        """
        if not invokes:
            return tuple(), {}
        if len(invokes) == 1:
            return invokes[0]
        raise NotImplementedError(
            f"{type(self).__name__} does not support batching multiple invokes"
        )

    def interleave(
        self, fn: Any, *args: Any, batcher: "Batcher | None" = None, **kwargs: Any
    ) -> Any:
        """Run ``fn`` interleaved with the interleaver's registered workers.

        This is the low-level driver behind `trace`; you rarely call it
        directly. The workers (edits + per-invoke interventions, with their batch
        groups) are set up on the interleaver first; this runs ``fn(*args, **kwargs)``
        alongside them and clears them afterward.

        Args:
            fn: The callable to run, or a method name resolved against the module.
            *args: Positional inputs for a direct (untraced) call. They're wrapped as
                a single implicit invoke and assembled like a one-invoke trace
                (tokenized/collated), then moved to `device`. Ignored when
                ``batcher`` is given (the inputs come from assembling it).
            batcher: The per-invoke inputs to combine into one call. When given, it's
                assembled into ``(args, kwargs)`` and registered on the interleaver so
                [`handle`][nnsight.intervention.interleaver.Interleaver.handle] can
                narrow each worker to its own rows; any ``kwargs`` passed alongside
                (trace-level params like ``max_new_tokens``) override the assembled
                ones.
            **kwargs: Keyword inputs — part of the direct call's single invoke when no
                ``batcher`` is given, else trace-level params for the assembled call.

        Returns:
            Any: Whatever ``fn`` returned (typically the module's forward output).
        """
        # Add the passed (args, kwargs) as one more input set, then assemble the
        # combined call and register the batcher so handle() can narrow per worker.
        # A direct (untraced) call has no batcher: create one. Either way the add is
        # uniform — a direct call's input contributes a row; a trace's forward params
        # (max_new_tokens, no data rows) fold into the assembled call.
        if batcher is None:
            batcher = self._batcher_class(self, kwargs)
        self.interleaver.batcher = batcher
        batcher.add(*args, **kwargs)
        args, kwargs = batcher.assemble(fn)
        # Move input tensors onto the model's device so the user doesn't have to.
        device = self.device
        if device is not None:
            args, kwargs = apply(
                (args, kwargs), lambda tensor: tensor.to(device), torch.Tensor
            )
        # Resolve a named fn against the live module now (after any dispatch),
        # so it binds to the module actually running rather than an earlier one.
        if isinstance(fn, str):
            fn = getattr(self._module, fn)
        # Registered edits run first — prepend them so an edit's swap lands before a
        # trace intervention reads that location. They act on the whole batch (no
        # group); the interleaver's `prepare` has already added any invoke workers.
        # Assigned rather than spliced in place, so this goes through the setter
        # and the interleaver's index of who is parked where is re-derived with it.
        self.interleaver.mediators = self._edits + self.interleaver.mediators
        result = None
        try:
            with self.interleaver:
                result = fn(*args, **kwargs)
                # The model has produced its return value; serve it to any
                # intervention parked on `tracer.result` while still interleaving.
                self.interleaver.handle("result", result)
            # The model finished: surface any worker still parked on a location
            # the run never reached (an out-of-order request).
            self.interleaver.check_dangling_mediators()
        except EarlyStopException:
            # An intervention stopped before the model began running: the
            # worker raised during start(), so __enter__ never finished and
            # __exit__ did not run to swallow it.
            pass
        finally:
            self.interleaver.cancel()
        return result

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails, so envoy children (set on the
        # instance) and real attributes are already handled. Fall through to the
        # wrapped module. __dict__.get avoids recursing before _module is set.
        module = self.__dict__.get("_module")
        if module is None or not hasattr(module, name):
            raise AttributeError(
                f"{type(self).__name__!r} object (nor its module) has attribute {name!r}"
            )

        value = getattr(module, name)

        # A submodule not yet mirrored as an envoy: wrap it so interventions
        # work on it too (and it's reachable next time as a normal attr).
        if isinstance(value, torch.nn.Module):
            return self._wrap_envoy(name, value)

        return value

    def __call__(self, *args: Any, hook: bool = False, **kwargs: Any) -> Any:
        """Run this module's forward — applying it ad hoc, out of execution order.

        Inside a trace you can feed a module any input to compute with it away from
        its place in the forward pass — e.g. the logit lens, running ``lm_head`` on
        an intermediate hidden state::

            with model.trace(prompt):
                hidden = model.transformer.h[-1].output
                logits = model.lm_head(model.transformer.ln_f(hidden))

        While interleaving the module is called the ordinary way, with this
        trace stood down for the duration. Its own hooks and wrappers still fire
        — a runtime that keeps collectives around the forward (transformers
        tensor parallelism wraps ``module.forward`` with them) needs them to —
        while nnsight serves nothing and spends no occurrence, for this
        module *or anything under it*. That keeps the call from switching into
        the very worker greenlet making it, and leaves the module's real place in
        the forward pass untouched: calling a whole layer ad hoc does not consume
        the occurrence its children's real visit was going to fill. Outside a
        trace it is an ordinary module call.

        Pass ``hook=True`` to let the trace watch the call too. Use it for a
        module attached to the tree that isn't part of the real forward pass —
        an adapter, LoRA, or SAE applied in an edit — so its internals become
        observable at ``.submodule.output``::

            model.transformer.h[0].adapter = MyAdapter()
            with model.edit() as (tracer, edited):
                acts = edited.transformer.h[0].output
                edited.transformer.h[0].output = \
                    edited.transformer.h[0].adapter(acts, hook=True)
            with edited.trace(prompt):
                inner = edited.transformer.h[0].adapter.inner.output.save()

        The block above applies the adapter once, at the first time the layer runs.
        To apply it every time — each step of a generation loop — put the
        passthrough under the edit tracer's ``iter``::

            with model.edit(inplace=True) as tracer:
                for _ in tracer.iter[:]:
                    acts = model.transformer.h[0].output
                    model.transformer.h[0].output = \
                        model.transformer.h[0].adapter(acts, hook=True)

        Args:
            *args: Inputs to run the module's forward on.
            hook: Whether *nnsight* watches the call. If ``False`` (default)
                the module runs normally, its own hooks and all, but this trace
                is stood down for the duration — so neither this module nor
                anything under it serves a value or spends an occurrence, and
                its real place in the forward pass is untouched. If ``True``,
                the trace watches too, so the call's internals are addressable
                at ``.submodule.output``; use it for a module attached to the
                tree rather than one the forward pass already runs.
            **kwargs: Keyword inputs to the module's forward.

        Returns:
            The module's output for these inputs.
        """
        if self.interleaver.interleaving and not hook:
            # Run the module the ordinary way — its own hooks included — with
            # only *this* interleaver stood down, so nothing the call touches is
            # mistaken for the real forward pass. Switching the flag rather than
            # dodging `__call__` matters twice over: hooks the module's runtime
            # installed still fire (transformers keeps its tensor-parallel
            # collectives in them, so calling `forward` directly returns one
            # rank's slice), and the suppression reaches *submodules* too — a
            # direct `forward` on a composite module leaves its children
            # instrumented, so the ad-hoc call feeds their locations and steals
            # the occurrence the real forward was going to fill.
            #
            # Restores the previous value rather than True, so this composes if
            # anything ever calls it while already stood down.
            interleaving = self.interleaver.interleaving
            self.interleaver.interleaving = False
            try:
                return self._module(*args, **kwargs)
            finally:
                self.interleaver.interleaving = interleaving
        return self._module(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, torch.nn.Module) and not name.startswith("_"):
            self._add_envoy(name, value)
        else:
            object.__setattr__(self, name, value)

    def __iter__(self) -> Iterator[Envoy]:
        """Iterate over this envoy's direct children.

        Yields each immediate child envoy — e.g. the blocks of a
        `ModuleList`, so ``for layer in model.model.layers:``
        walks the layers. This is *not* recursive; use [`modules`][nnsight.intervention.envoy.Envoy.modules] to walk the
        whole subtree.

        Yields:
            Envoy: Each direct child envoy, in order.

        Example:
            ::

                for layer in model.model.layers:
                    print(layer.path)
        """
        return iter([child for _, child in self._named_children()])

    def __getitem__(self, key: Any) -> Envoy:
        """Index into direct child envoys, e.g. for a `ModuleList`.

        An int or str key resolves **by name**, the way the wrapped module
        indexes it — ``layers[2]`` is the module `layers` holds at ``"2"``, even
        when an earlier entry is a module the tree already wraps elsewhere and so
        has no envoy of its own here.

        Args:
            key: An index the wrapped module accepts (an int, or a str), or a
                slice over this envoy's children in module order.

        Returns:
            Envoy: The child envoy at ``key`` (e.g. ``model.layers[0]`` for the
            first block of a ``ModuleList``).
        """
        if isinstance(key, slice):
            return [child for _, child in self._named_children()][key]
        if isinstance(key, int) and key < 0:
            key += len(self)
        return getattr(self, str(key))

    def __len__(self) -> int:
        """The number of entries in the wrapped module (e.g. a ``ModuleList``'s length)."""
        return len(self._module)

    def __bool__(self) -> bool:
        """Truthy exactly when the wrapped module is.

        Defined so truthiness does not fall back to `__len__`, which only a
        container module answers. An empty `ModuleList` is falsy here as it is
        in torch, and a plain module is truthy, the way `nn.Module` is.
        """
        return bool(self._module)

    def get(self, path: str) -> Any:
        """Resolve a dotted ``path`` from this envoy, e.g. ``"transformer.h.0.mlp"``.

        A programmatic alternative to attribute access, useful when the path is
        built at runtime. Outside a trace it returns the descendant envoy; inside
        one, a trailing ``.output``/``.input`` resolves through to the live value.

        Examples:
            >>> model = TransformersModel("openai-community/gpt2", dispatch=True)
            >>> module = model.get("transformer.h.0.mlp")
            >>> with model.trace("Hello"):
            ...     value = model.get("transformer.h.0.mlp.output").save()

        Args:
            path: A ``.``-separated attribute path relative to this envoy.

        Returns:
            The resolved child [`Envoy`][nnsight.intervention.envoy.Envoy], or the live value when ``path``
            ends in an intervention attribute during a trace.
        """
        obj: Any = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def modules(
        self,
        include_fn: Callable[[Envoy], bool] | None = None,
        names: bool = False,
    ) -> list[Any]:
        """Flatten this envoy's whole subtree (children first, then self) into a list.

        Args:
            include_fn: Optional predicate on an envoy; only those it returns
                ``True`` for are kept.
            names: If ``True``, yield ``(path, envoy)`` tuples instead of envoys.

        Returns:
            A list of [`Envoy`][nnsight.intervention.envoy.Envoy] (or ``(path, Envoy)`` tuples when ``names``).
        """
        # Flatten the envoy tree (children first, then self), optionally filtered
        # by include_fn and paired with each envoy's path when names=True. An envoy
        # two paths reach is listed once, at the first, as `named_modules()` lists
        # a shared module once — and `seen` is what keeps a self-referential
        # spelling (transformers' `base_model` on a base model) from recursing.
        result: list[Any] = []
        seen: set[int] = set()

        def walk(envoy: Envoy) -> None:
            if id(envoy) in seen:
                return
            seen.add(id(envoy))
            for _, child in envoy._named_children():
                walk(child)
            if include_fn is None or include_fn(envoy):
                result.append((envoy.path, envoy) if names else envoy)

        walk(self)
        # `walk` reaches itself through its closure cell, a cycle that holds
        # `result` (and so every envoy and the model) until a GC pass. Clearing
        # the cell frees it by refcounting.
        del walk
        return result

    def named_modules(
        self, include_fn: Callable[[Envoy], bool] | None = None
    ) -> list[tuple[str, Envoy]]:
        """Flatten the subtree into ``(path, envoy)`` tuples: [`modules`][nnsight.intervention.envoy.Envoy.modules] with ``names=True``.

        Args:
            include_fn: Optional predicate on an envoy; only those it returns
                ``True`` for are kept.

        Returns:
            A list of ``(path, Envoy)`` tuples for the included envoys.
        """
        return self.modules(include_fn=include_fn, names=True)

    def _name(self) -> str:
        return self._module._get_name()

    def _repr_modulelist(self) -> str:
        reprs = [repr(child) for child in self]

        start_end = [[0, 0]]
        blocks = [reprs[0]]
        for index, child_repr in enumerate(reprs[1:], 1):
            if child_repr == blocks[-1]:
                start_end[-1][1] += 1
                continue
            start_end.append([index, index])
            blocks.append(child_repr)

        lines = []
        for (start, end), block in zip(start_end, blocks):
            if start == end:
                line = f"({start}): {block}"
            else:
                line = f"({start}-{end}): {end - start + 1} x {block}"
            lines.append(_addindent(line, 2))

        return self._name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __repr__(self) -> str:
        if self._child_map and isinstance(self._module, torch.nn.ModuleList):
            return self._repr_modulelist()

        extra_lines = []
        extra_repr = self._module.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")

        # Split aliases bound here into those naming a direct child (decorate its
        # line as "alias/realname") and multi-component mounts (their own lines).
        direct: dict[str, list[str]] = {}
        mounts: list[str] = []
        for alias, path in self._aliases.items():
            if "." in path:
                mounts.append(alias)
            else:
                direct.setdefault(path, []).append(alias)

        child_lines = []
        for name, child in self._named_children():
            label = "/".join([*direct.get(name, []), name])
            child_lines.append(f"({label}): " + _addindent(repr(child), 2))
        for alias in mounts:
            # A mount that is also an entry of the module has a line already.
            if alias in self._child_map:
                continue
            child_lines.append(f"({alias}): " + _addindent(repr(getattr(self, alias)), 2))

        # eproperties given a description surface as their own lines, so special
        # served values (e.g. a model's .logits) show up in the tree; the plain
        # .input/.output views carry no description and stay hidden.
        eproperty_lines = []
        seen = set()
        for cls in type(self).__mro__:
            for attr in cls.__dict__.values():
                if (
                    isinstance(attr, eproperty)
                    and attr.description is not None
                    and attr.name not in seen
                ):
                    seen.add(attr.name)
                    eproperty_lines.append(str(attr))

        lines = extra_lines + child_lines + eproperty_lines

        main_str = self._name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines and not eproperty_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str
