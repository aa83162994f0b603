"""POCSENSE as a pipeline: the three projections, and the sweep over them."""

from __future__ import annotations

import math

import torch

import bartorch
from bartorch import linop, optim, priors
from bartorch._operator import Shape
from bartorch.linop import _basic as basic
from bartorch.optim._blocks import _prox
from bartorch.tools import _sampling as sampling

__all__ = ["pocsense"]

#: The sweep count BART's POCSENSE application defaults to.
_MAXITER = 50


class _Consistency:
    """The measured samples put back, ``mri2.c``'s ``data_consistency``.

    ``(I - P) x + P y``: where a sample was taken the measurement stands, and
    elsewhere the iterate is left alone.  With ``robust`` the residual at a
    measured position is soft-thresholded instead of discarded, which is
    ``pocs.c``'s ``robust_consistency``.
    """

    def __init__(self, P, measured: torch.Tensor, robust: float | None = None):
        self.P = P
        self.measured = measured
        self.sampled = P(measured)
        self.robust = robust

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.robust is not None:
            kept = self.measured + bartorch.soft_thresh(self.robust, x - self.measured)
            return (x - self.P(x)) + self.P(kept)
        return (x - self.P(x)) + self.sampled


class _Range:
    """The range of the coil sensitivities, ``pocs.c``'s ``sense_proj_apply``.

    ``E E^H``, which is a projection because the encoding carries the
    sensitivities scaled the way ``maps_create`` scales them.
    """

    def __init__(self, A):
        self.A = A

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.A(self.A.H(x))


class _Sparsity:
    """A threshold on the coil images, ``pocs.c``'s ``sparsity_proj_apply``.

    The term's proximal operator conjugated by the transform between the
    samples and the coil images: the uncentred transform, and beside it the
    modulation and the scaling that together make it the unitary centred one
    in the convention the application modulates its k-space into.

    The two ride in one array, as ``pocs.c`` builds them --
    ``fftmod(fftscale(ones))`` -- and are applied by a diagonal operator, whose
    adjoint is the conjugate multiply on the way in.  Both are then BART's own
    ``md_zmul2`` and ``md_zmulc2``, which is what an odd axis needs: there the
    modulation is a phase rather than a sign, and a complex product computed
    with a fused multiply-add does not round where two multiplies and a sum
    round.
    """

    def __init__(self, term, axes: tuple[int, ...], shape: Shape):
        self.term = term
        self.axes = axes
        voxels = math.prod(shape[axis] for axis in axes)
        broadcast = (1, *shape[1:])
        ones = torch.full(broadcast, 1.0 / math.sqrt(voxels), dtype=torch.complex64)
        # `fftmod` is a command, and a command drops the leading axes that are
        # one; the diagonal is broadcast along the coils, so it needs them.
        modulation = bartorch.fftmod(ones, axes).reshape(broadcast)
        self.modulation = basic.Diagonal(modulation, shape)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        image = self.modulation.H(bartorch.ifft(x, self.axes, uncentred=True))
        image = _prox(self.term, image, 1.0, tuple(x.shape))
        return bartorch.fft(self.modulation(image), self.axes, uncentred=True)


def pocsense(
    kspace: torch.Tensor,
    sensitivities: torch.Tensor,
    *,
    maxiter: int | None = None,
    alpha: float = 0.0,
    wavelet: bool = False,
    robust: float | None = None,
    scaling: float | None = None,
) -> torch.Tensor:
    """POCSENSE reconstruction by projections onto convex sets.

    The steps of BART's POCSENSE application: data scaling, the sampling
    pattern read off the k-space, modulation into BART's uncentred
    convention, and :class:`bartorch.optim.POCS` sweeps of the projections
    onto data consistency, the range of the coil sensitivities and, with
    ``alpha``, a sparsity projection.

    Parameters
    ----------
    kspace : torch.Tensor
        Cartesian k-space ``(coils, z, y, x)``, C order.
    sensitivities : torch.Tensor
        Normalized coil sensitivities ``(coils, [1,] z, y, x)``, as
        :func:`~bartorch.tools.ecalib` returns them.
    maxiter : int, default=None
        Sweeps; ``None`` is BART's 50.
    alpha : float, default=0.0
        Regularization weight; zero omits the sparsity projection.
    wavelet : bool, default=False
        Soft-threshold the Daubechies-2 wavelet coefficients of the coil
        images (``-l 1``) rather than apply the L2 proximal operator to the
        samples.
    robust : float, default=None
        Soft-threshold the residual at measured positions by this amount
        instead of replacing it with the measurement (``-o``).
    scaling : float, default=None
        Data scaling; ``None`` estimates it with
        :func:`bartorch.optim.data_scaling`.  The result is in the units of
        ``kspace`` either way.

    Returns
    -------
    torch.Tensor
        Coil k-space of ``kspace``'s shape, centred convention; the image is
        the coil combination of its inverse Fourier transform.

    Examples
    --------
    >>> samples = pocsense(kspace, maps)
    >>> image = bartorch.rss(bartorch.ifft(samples, (-1, -2, -3), unitary=True), axes=(0,))
    """
    maps = sensitivities.squeeze(1) if sensitivities.ndim > 3 else sensitivities

    shape = tuple(kspace.shape)
    image_shape = shape[1:]
    if len(shape) > 3 and shape[1] == 1:
        image_shape = shape[2:]

    scale = optim.data_scaling(kspace) if scaling is None else scaling
    measured = kspace * (1.0 / scale)
    pattern = sampling.pattern(measured)

    A = linop.CartesianSense(maps, image_shape, coil_batch=0, modulated=True)
    P = basic.Sampling(pattern.squeeze(), A.oshape)
    # The axes the transform runs along, counted from the last: every spatial
    # axis of the image that has more than one sample.
    spatial = tuple(-1 - axis for axis, size in enumerate(reversed(image_shape)) if size > 1)
    data = bartorch.fftmod(measured.reshape(A.oshape), spatial)

    sweep: list = [_Consistency(P, data, robust), _Range(A)]
    if alpha != 0.0:
        if wavelet:
            term = priors.Wavelet(
                spatial,
                alpha,
                joint_axes=(-len(A.oshape),),
                family="dau2",
                randshift=False,
            )
            sweep.append(_Sparsity(term, spatial, A.oshape))
        else:
            sweep.append(priors.L2(alpha))

    iterate = optim.POCS(sweep, maxiter=_MAXITER if maxiter is None else maxiter)
    answer = bartorch.fftmod(iterate(data), spatial, inverse=True)
    return (answer * scale).reshape(shape)
