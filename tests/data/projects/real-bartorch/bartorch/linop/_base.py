"""The linear operator base class and operator algebra.

The classes that combine operators are private.  Composition, addition,
scaling and the adjoint are reached through ``@``, ``+``, ``-``, ``*`` and
``.H``.  The concrete classes these return are private implementation details
and must not be used in type annotations or ``isinstance`` checks; annotate
with :class:`LinearOperator`.
"""

from __future__ import annotations

import math
from numbers import Number

import torch

from bartorch._dispatch import BartError
from bartorch._lib import library
from bartorch._operator import Built, Operator, Shape

__all__ = ["LinearOperator"]


def _tracking(x) -> bool:
    return isinstance(x, torch.Tensor) and x.requires_grad and torch.is_grad_enabled()


def _slicing(key, shape: tuple[int, ...]):
    """Where each axis's block starts, how wide it is, and which axes go away.

    What ``A[key]`` has to know to build the restriction, worked out from the
    same key a tensor would take.
    """
    keys = list(key) if isinstance(key, tuple) else [key]

    if sum(1 for k in keys if k is Ellipsis) > 1:
        raise IndexError("only one ... is allowed in an index")
    if Ellipsis in keys:
        at = keys.index(Ellipsis)
        keys[at : at + 1] = [slice(None)] * (len(shape) - (len(keys) - 1))
    if len(keys) > len(shape):
        raise IndexError(f"{len(keys)} indices for an operator with {len(shape)} axes")
    keys += [slice(None)] * (len(shape) - len(keys))

    start, block, drop = [], [], set()
    for axis, (k, size) in enumerate(zip(keys, shape)):
        if isinstance(k, (int,)) and not isinstance(k, bool):
            index = k + size if k < 0 else k
            if not 0 <= index < size:
                raise IndexError(f"index {k} is out of range for axis {axis} of size {size}")
            start.append(index)
            block.append(1)
            drop.add(axis)
        elif isinstance(k, slice):
            if k.step not in (None, 1):
                raise IndexError(
                    "a step other than one has no BART constructor behind it; "
                    "index the result instead"
                )
            begin, stop, _ = k.indices(size)
            if stop < begin:
                raise IndexError(f"axis {axis} would be empty, which is not an operator")
            start.append(begin)
            block.append(stop - begin)
        else:
            raise IndexError(f"an operator takes integers, slices and ..., not {type(k).__name__}")
    return tuple(start), tuple(block), drop


class LinearOperator(Operator):
    """A linear map between two C-order shapes, with an adjoint.

    A subclass is defined either by :meth:`_create`, which builds one of
    BART's operators, or in Python by :meth:`forward` and :meth:`adjoint`, and
    :meth:`normal` where a cheaper form exists.  BART reaches a Python-defined
    operator through callbacks, one crossing into Python per application.

    Both kinds compose into a single BART operator, are solved by
    :mod:`bartorch.optim`, and differentiate in torch.  The backward pass of
    ``A(x)`` is ``A.adjoint``, which for complex tensors is the conjugate
    Wirtinger gradient torch expects, not the transpose.

    Attributes
    ----------
    ishape, oshape : tuple of int
        Domain and codomain, C order.
    device : torch.device or None
        Where the operator does its arithmetic, when that is not where its
        operands are.

    Examples
    --------
    An operator defined in Python, composed with a BART operator into one:

    >>> class Phase(linop.LinearOperator):
    ...     def __init__(self, phase):
    ...         self.phase = phase
    ...         self.ishape = self.oshape = tuple(phase.shape)
    ...         super().__init__()
    ...     def forward(self, x, out=None):
    ...         return x * self.phase
    ...     def adjoint(self, y, out=None):
    ...         return y * self.phase.conj()
    >>> A = linop.FFT((64, 64), axes=(-1, -2)) @ Phase(torch.exp(1j * torch.rand(64, 64)))
    >>> y = A(x)        # recorded for autograd when x requires a gradient
    >>> z = A.H(y)      # the adjoint; A.gram() is the normal operator A^H A
    """

    #: Whether BART's closed-form pseudo-inverse for this operator has been
    #: checked against the damped normal equations it claims to solve.  BART
    #: offering one is not enough; see :meth:`pinv`.
    _exact_pinv: bool = False

    _free_name = "bartorch_linop_free"
    _domain_name = "bartorch_linop_domain"
    _codomain_name = "bartorch_linop_codomain"

    def __init__(self):
        if self._native:
            if not self._defers:
                self._build()
        elif (
            type(self).forward is LinearOperator.forward
            or type(self).adjoint is LinearOperator.adjoint
        ):
            raise TypeError(f"{type(self).__name__} must define _create, or forward and adjoint")

    def forward(self, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Apply ``A x`` without recording for autograd.

        Parameters
        ----------
        x : tensor, shape ishape
            Input.
        out : tensor, shape oshape, default=None
            Written in place when given.  For a BART-backed operator, a
            contiguous complex64 tensor on the input's device.

        Returns
        -------
        tensor, shape oshape
            ``out`` when given.
        """
        return self._apply(library().bartorch_linop_forward, x, self.ishape, self.oshape, out)

    def adjoint(self, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Apply ``A^H y`` without recording for autograd.

        Parameters
        ----------
        y : tensor, shape oshape
            Input.
        out : tensor, shape ishape, default=None
            Written in place when given, as for :meth:`forward`.

        Returns
        -------
        tensor, shape ishape
        """
        return self._apply(library().bartorch_linop_adjoint, y, self.oshape, self.ishape, out)

    def normal(self, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Apply ``A^H A x``.

        A BART-backed operator applies BART's normal, which for an encoding
        built with ``toeplitz=True`` is a convolution with a point spread
        function; a Python-defined one computes ``adjoint(forward(x))``.

        Parameters
        ----------
        x : tensor, shape ishape
            Input.
        out : tensor, shape ishape, default=None
            Written in place when given, as for :meth:`forward`.

        Returns
        -------
        tensor, shape ishape
        """
        if self._native:
            return self._apply(library().bartorch_linop_normal, x, self.ishape, self.ishape, out)
        return self.adjoint(self.forward(x), out)

    def _as_callbacks(self) -> LinearOperator:
        return LinearOperator.from_callbacks(
            self.oshape, self.ishape, self.forward, self.adjoint, self.normal
        )

    @classmethod
    def from_callbacks(cls, oshape, ishape, forward, adjoint, normal=None) -> LinearOperator:
        """Build a BART operator from Python functions.

        Each function receives a view of BART's buffer, without a copy, and
        returns a tensor; every application calls back into Python.

        Parameters
        ----------
        oshape, ishape : tuple of int
            Codomain and domain, C order.
        forward : callable
            ``x -> A x``, from ``ishape`` to ``oshape``.
        adjoint : callable
            ``y -> A^H y``, from ``oshape`` to ``ishape``.
        normal : callable, default=None
            ``x -> A^H A x`` in one function; ``None`` chains ``adjoint``
            onto ``forward``.

        Returns
        -------
        LinearOperator
        """
        from bartorch.linop._basic import _Callback

        return _Callback(oshape, ishape, forward, adjoint, normal)

    @property
    def plan(self):
        """The encoding form this operator was lowered into, or ``None``.

        An MRI encoding reports the transform, the element-wise factors on
        each side of it, the contraction, what is streamed, how the normal is
        applied and which executor built it.  A composition containing exactly
        one encoding reports that encoding's plan; any other operator has none.

        ``plan.fused`` is false where the coil-slab loop could not take the
        form or a sum of terms was left as a chain: the same result, computed
        more slowly.  ``plan.executor`` is read back from the library after
        the build.  Reading the property on a composition builds it.

        Returns
        -------
        bartorch.linop._form.Plan or None

        Examples
        --------
        >>> A = linop.CartesianSense(maps, (64, 64), pattern=mask)
        >>> A.plan.transform, A.plan.normal, A.plan.executor
        ('fft', 'kernel', 'slab')
        >>> A.plan.fused
        True
        """
        if self._defers and "_plan" not in self.__dict__:
            # A composition works out its plan by lowering, and lowering is
            # what building does, so ask for the handle rather than report
            # the plan of an encoding the sum around it may have changed.
            self._h  # noqa: B018
        own = getattr(self, "_plan", None)
        if own is not None:
            return own
        # By value rather than by part: an adjoint and a normal each hold the
        # operator twice, once as it was given and once as the handle, and two
        # references to one encoding are still one plan.
        found = {
            part.plan
            for part in (getattr(self, name, None) for name in ("a", "b", "op", "source"))
            if isinstance(part, LinearOperator) and part.plan is not None
        }
        return found.pop() if len(found) == 1 else None

    # --- operator algebra ---------------------------------------------------
    #
    # Every one of these is a BART constructor applied to BART operators, so
    # the result is a single operator that BART's solvers drive in their own
    # loop.  Nothing here computes with a tensor.

    def __matmul__(self, other: LinearOperator) -> LinearOperator:
        """``self @ other`` applies ``other`` first, as one BART operator."""
        if not isinstance(other, LinearOperator):
            return NotImplemented
        return _Compose(self, other)

    def __add__(self, other: LinearOperator) -> LinearOperator:
        """``self + other``, as one BART operator; the shapes must agree."""
        if not isinstance(other, LinearOperator):
            return NotImplemented
        return _Add(self, other)

    def __sub__(self, other: LinearOperator) -> LinearOperator:
        """``self - other``, which is ``self + (-other)``."""
        if not isinstance(other, LinearOperator):
            return NotImplemented
        return _Add(self, -other)

    def __neg__(self) -> LinearOperator:
        """``-self``, BART's scale by minus one chained onto it."""
        return _Scale(-1.0, self.oshape) @ self

    def __mul__(self, other) -> LinearOperator:
        """``c * self`` for a real or complex number ``c``.

        Composition is ``@``, not ``*``: an operator on either side is
        refused rather than taken as composition.
        """
        if isinstance(other, LinearOperator):
            raise TypeError("compose operators with @, not *")
        if not isinstance(other, Number):
            return NotImplemented
        return _Scale(other, self.oshape) @ self

    __rmul__ = __mul__

    def __truediv__(self, other) -> LinearOperator:
        """``self / c``, the scale by its reciprocal."""
        if not isinstance(other, Number) or isinstance(other, LinearOperator):
            return NotImplemented
        return _Scale(1.0 / complex(other), self.oshape) @ self

    def __pow__(self, power: int) -> LinearOperator:
        """``self ** n``, ``n`` applications chained; the operator must be square."""
        if not isinstance(power, int) or isinstance(power, bool):
            return NotImplemented
        if self.ishape != self.oshape:
            raise ValueError(
                f"a power needs a square operator, and this one maps {self.ishape} to {self.oshape}"
            )
        if power < 0:
            raise ValueError("a negative power would be an inverse, which BART does not build")
        from bartorch.linop._basic import Identity

        out: LinearOperator = Identity(self.ishape)
        for _ in range(power):
            out = out @ self
        return out

    def __getitem__(self, key) -> LinearOperator:
        """``A[key]``: the operator whose output is ``A(x)[key]``.

        An :class:`~bartorch.linop.Extract` chained onto this operator, with a
        :class:`~bartorch.linop.Reshape` after it where an integer index drops
        an axis, so the result is one BART operator whose adjoint zero-fills
        outside the block.  ``key`` holds integers and slices, at most one per
        codomain axis, and at most one ``...``.

        Raises
        ------
        IndexError
            For a slice step other than one, an empty slice, an index out of
            range, or a key of another type.

        Examples
        --------
        >>> coil = CartesianSense(...)  # (coils, y, x)
        >>> first = coil[0]            # (y, x), the first coil
        >>> middle = coil[:, 8:24]     # (coils, 16, x)
        """
        from bartorch.linop._shape import Extract, Reshape

        start, block, drop = _slicing(key, self.oshape)
        out: LinearOperator = Extract(start, block, self.oshape) @ self
        if drop:
            kept = tuple(n for axis, n in enumerate(block) if axis not in drop)
            out = Reshape(kept or (1,), block) @ out
        return out

    @property
    def H(self) -> LinearOperator:  # noqa: N802  (the mathematical name)
        """``A^H``, from BART's adjoint constructor.

        The result is a BART operator: ``A.H @ B`` is one operator, and the
        normal of ``A.H`` is ``A A^H``.
        """
        return _Adjoint(self)

    @property
    def T(self) -> LinearOperator:  # noqa: N802  (the mathematical name)
        """``A^T``, the adjoint without the conjugation, as ``conj(A).H``."""
        return self.conj().H

    def conj(self) -> LinearOperator:
        """``conj(A)``: conjugate the input, apply, conjugate the output."""
        from bartorch.linop._basic import Conj

        return Conj(self.oshape) @ self @ Conj(self.ishape)

    def gram(self) -> LinearOperator:
        """``A^H A`` as an operator.

        BART's normal: for an encoding built with ``toeplitz=True``, the
        convolution with a point spread function.
        """
        return _Normal(self)

    def cogram(self) -> LinearOperator:
        """``A A^H`` as an operator."""
        return _Normal(self.H)

    def opnorm(self) -> float:
        """Estimate the spectral norm by BART's power iteration on ``A^H A``.

        The starting vector comes from BART's process-global generator, so
        repeated calls differ slightly.  Accurate enough for a step size or a
        Lipschitz constant, not an exact singular value.

        Returns
        -------
        float

        Raises
        ------
        BartError
            When the power iteration does not converge.
        """
        op = self._bart()
        largest = self._under_lock(library().bartorch_linop_maxeigen, op._h.ptr, device=op.device)
        if largest < 0.0:
            raise BartError("the power iteration did not converge on this operator")
        return math.sqrt(largest)

    def __call__(self, x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """Apply ``A x``, recorded for autograd when ``x`` requires a gradient.

        The backward pass applies :meth:`adjoint`.

        Parameters
        ----------
        x : tensor, shape ishape
            Input.
        out : tensor, shape oshape, default=None
            Contiguous complex64 tensor written in place.

        Returns
        -------
        tensor, shape oshape

        Raises
        ------
        ValueError
            When ``out`` is given and ``x`` requires a gradient.
        """
        if _tracking(x):
            if out is not None:
                raise ValueError(
                    "out= writes in place, which autograd cannot record; "
                    "drop it, or detach the input"
                )
            from bartorch.linop._autograd import apply_forward

            return apply_forward(self, x)
        return self.forward(x, out)

    # pyxu's names for the shapes, so that an operator can stand in for one of
    # its LinOps.  ishape and oshape stay the ones this library uses.
    #
    # There is deliberately no flat ``.shape``: an operator here maps a shape
    # to a shape, not a vector of length N to one of length M.  The flat sizes
    # are ``dim_size`` and ``codim_size``.

    @property
    def dim_shape(self) -> tuple[int, ...]:
        """The domain, under pyxu's name for it; the same as :attr:`ishape`."""
        return self.ishape

    @property
    def codim_shape(self) -> tuple[int, ...]:
        """The codomain, under pyxu's name for it; the same as :attr:`oshape`."""
        return self.oshape

    @property
    def dim_size(self) -> int:
        """Number of elements in the domain."""
        return math.prod(self.ishape)

    @property
    def codim_size(self) -> int:
        """Number of elements in the codomain."""
        return math.prod(self.oshape)

    @property
    def dim_rank(self) -> int:
        """Number of axes of the domain."""
        return len(self.ishape)

    @property
    def codim_rank(self) -> int:
        """Number of axes of the codomain."""
        return len(self.oshape)

    def to_nonlinear(self):
        """The same operator as a :class:`~bartorch.nlop.NonlinearOperator`."""
        from bartorch.nlop._base import FromLinear

        return FromLinear(self)

    def pinv(self, y: torch.Tensor, damp: float = 0.0, **kwargs) -> torch.Tensor:
        """Solve ``(A^H A + damp I) x = A^H y``, the damped least-squares problem.

        :class:`~bartorch.linop.ScaledSum` is solved by BART's closed-form
        pseudo-inverse; every other operator, including compositions, by
        :class:`~bartorch.optim.CG`.

        Parameters
        ----------
        y : tensor, shape oshape
            Data.
        damp : float, default=0.0
            Tikhonov weight, ``CG``'s ``lambda_``.
        **kwargs
            Passed to :class:`~bartorch.optim.CG`; ``x0`` is the warm start.

        Returns
        -------
        tensor, shape ishape

        Raises
        ------
        TypeError
            When ``kwargs`` are given and the closed form applies.

        Notes
        -----
        BART attaches a closed form (``norm_inv``) only in ``linops/sum.c``,
        and it is correct for ``linop_scaled_sum`` alone: for the plain sum it
        solves a differently scaled problem.  :class:`~bartorch.linop.Sum`
        therefore takes the solver.
        """
        op = self._bart()
        lib = library()

        if self._exact_pinv and lib.bartorch_linop_has_pseudo_inv(op._h.ptr):
            if kwargs:
                raise TypeError(
                    f"{type(self).__name__} has a closed-form pseudo-inverse in BART, so "
                    f"there is no solver to configure; drop {sorted(kwargs)}"
                )

            def solve(ptr, dst, src):
                return lib.bartorch_linop_pseudo_inv(ptr, float(damp), dst, src)

            return op._apply(solve, y, self.oshape, self.ishape)

        from bartorch.optim import CG

        x0 = kwargs.pop("x0", None)
        return CG(damp, **kwargs)(y, self, x0)


class _Composition(LinearOperator):
    """A product or a sum, kept as a description until something needs it.

    Its shapes come from its operands, so composing validates and reports
    without building anything.  The handle is built on first use, and the
    planner is offered the whole description first: an encoding with factors
    and terms around it is lowered into one encoding, and what a solver then
    drives is that rather than the chain this stands for.
    """

    _defers = True

    def __init__(
        self,
        a: LinearOperator,
        b: LinearOperator,
        ishape: Shape,
        oshape: Shape,
        match: bool = True,
    ):
        self.a, self.b = a._bart(), b._bart()
        self.ishape, self.oshape = tuple(ishape), tuple(oshape)
        self.device = self.a.device or self.b.device
        self._match = bool(match)
        super().__init__()

    def _chained(self) -> Built:
        """This composition as BART's own operator over the two operands."""
        raise NotImplementedError

    def _create(self) -> Built:
        return self._chained()

    def _build(self) -> None:
        """The lowered encoding where the planner has one, else the plain chain."""
        from dataclasses import replace

        from bartorch.linop import _plan as plan

        description = plan.describe(self) if self._match else None
        lowered = None if description is None else plan.lower(description)
        if lowered is None:
            super()._build()
            # A sum the form could not hold is a transform per term, and
            # saying so is the whole point of reporting a plan: without this
            # the search would answer with one term's own plan, which is the
            # silent fallback rather than a report of it.
            if description is not None and len(description.terms) > 1:
                inner = description.terms[0].encoding.plan
                if inner is not None:
                    self._plan = replace(inner, contraction="chained", terms=len(description.terms))
            return

        # The lowered operator answers from here on, and the two share its
        # handle rather than the pointer: one owner frees it once, whichever
        # of them the caller lets go of first.
        self._lowered = lowered
        self._h = lowered._h
        self._plan = lowered.plan
        if tuple(lowered.ishape) != self.ishape or tuple(lowered.oshape) != self.oshape:
            raise ValueError(
                f"the planner lowered {self.ishape}->{self.oshape} into "
                f"{tuple(lowered.ishape)}->{tuple(lowered.oshape)}"
            )


class _Compose(_Composition):
    """``a @ b`` as one BART operator; ``b`` is applied first."""

    def __init__(self, a: LinearOperator, b: LinearOperator, match: bool = True):
        super().__init__(a, b, b.ishape, a.oshape, match)

    def _chained(self) -> Built:
        ptr = self._under_lock(
            library().bartorch_linop_chain,
            self.b._h.ptr,
            self.a._h.ptr,
            device=self.device,
        )
        return Built(ptr, self.b.ishape, self.a.oshape, keep=(self.a, self.b), device=self.device)

    def __repr__(self) -> str:
        return f"({self.a!r} @ {self.b!r})"


class _Add(_Composition):
    """``a + b`` as one BART operator; the two must have the same shapes."""

    def __init__(self, a: LinearOperator, b: LinearOperator, match: bool = True):
        if tuple(a.ishape) != tuple(b.ishape) or tuple(a.oshape) != tuple(b.oshape):
            raise ValueError(
                f"a sum needs one pair of shapes, not {tuple(a.ishape)}->{tuple(a.oshape)} "
                f"and {tuple(b.ishape)}->{tuple(b.oshape)}"
            )
        super().__init__(a, b, a.ishape, a.oshape, match)

    def _chained(self) -> Built:
        ptr = self._under_lock(
            library().bartorch_linop_plus,
            self.a._h.ptr,
            self.b._h.ptr,
            device=self.device,
        )
        return Built(ptr, self.a.ishape, self.a.oshape, keep=(self.a, self.b), device=self.device)

    def __repr__(self) -> str:
        return f"({self.a!r} + {self.b!r})"


class _Adjoint(LinearOperator):
    """``A^H`` as one BART operator, from ``linop_get_adjoint``.

    BART builds this by swapping the operator's own forward and adjoint, so
    the result is a real BART operator: composing it needs no callbacks, and
    its normal is ``A A^H``.
    """

    def __init__(self, op: LinearOperator):
        self.source = op
        self.op = op._bart()
        super().__init__()

    def _create(self) -> Built:
        ptr = self._under_lock(
            library().bartorch_linop_adjoint_op, self.op._h.ptr, device=self.op.device
        )
        return Built(ptr, self.op.oshape, self.op.ishape, keep=(self.op,), device=self.op.device)

    @property
    def H(self) -> LinearOperator:  # noqa: N802
        return self.source

    def __repr__(self) -> str:
        return f"{self.source!r}.H"


class _WithNormal(LinearOperator):
    """``a``, answering ``normal`` when it is asked for ``A^H A``.

    BART derives a normal by chaining the adjoint onto the forward, which is
    the two applications.  Where the product has a closed form -- a sampling
    pattern and a subspace basis collapse into a single kernel applied between
    the transforms, and the frames are never made -- this is how that form is
    attached.  Both sides are BART operators, so the result is one operator
    still.
    """

    def __init__(self, a: LinearOperator, normal: LinearOperator):
        if normal.ishape != a.ishape or normal.oshape != a.ishape:
            raise ValueError(
                f"a normal operator maps the domain to itself, so {a.ishape} to {a.ishape}, "
                f"not {normal.ishape} to {normal.oshape}"
            )
        self.a, self.normal = a._bart(), normal._bart()
        super().__init__()

    def _create(self) -> Built:
        device = self.a.device or self.normal.device
        ptr = self._under_lock(
            library().bartorch_linop_with_normal,
            self.a._h.ptr,
            self.normal._h.ptr,
            device=device,
        )
        return Built(ptr, self.a.ishape, self.a.oshape, keep=(self.a, self.normal), device=device)

    def __repr__(self) -> str:
        return f"{self.a!r}.with_normal({self.normal!r})"


class _Normal(LinearOperator):
    """``A^H A`` as one BART operator, from ``linop_get_normal``."""

    def __init__(self, op: LinearOperator):
        self.source = op
        self.op = op._bart()
        super().__init__()

    def _create(self) -> Built:
        ptr = self._under_lock(
            library().bartorch_linop_normal_op, self.op._h.ptr, device=self.op.device
        )
        return Built(ptr, self.op.ishape, self.op.ishape, keep=(self.op,), device=self.op.device)

    @property
    def H(self) -> LinearOperator:  # noqa: N802
        # A normal operator is self-adjoint.
        return self

    def __repr__(self) -> str:
        return f"{self.source!r}.gram()"


class _Scale(LinearOperator):
    """Multiplication by one number, BART's ``linop_scale``.

    Private because ``c * A`` is how it is reached, and a scale on its own is
    ``c * Identity(shape)``.
    """

    def __init__(self, value, shape):
        self.value = complex(value)
        self._shape = tuple(shape)
        super().__init__()

    def _create(self) -> Built:
        from bartorch._lib import DIMS
        from bartorch._operator import dims

        ptr = self._under_lock(
            library().bartorch_linop_scale,
            DIMS,
            dims(self._shape),
            float(self.value.real),
            float(self.value.imag),
        )
        return Built(ptr, self._shape, self._shape)

    def __repr__(self) -> str:
        return f"{self.value:g}" if self.value.imag == 0 else f"{self.value}"
