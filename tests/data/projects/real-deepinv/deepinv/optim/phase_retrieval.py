from __future__ import annotations
import torch
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from deepinv.physics import Physics


def default_preprocessing(y: torch.Tensor, physics: Physics) -> torch.Tensor:
    r"""
    Default preprocessing function for spectral methods.

    The output of the preprocessing function is given by:

    .. math::
        \max(1 - 1/y, -5).

    :param torch.Tensor y: Measurements.
    :param deepinv.physics.Physics physics: Instance of the physics modeling the forward matrix.

    :return: The preprocessing function values evaluated at y.
    """
    return torch.max(1 - 1 / y, torch.tensor(-5.0))


def correct_global_phase(
    x_est: torch.Tensor,
    x_ref: torch.Tensor,
    correct_magnitude: bool = False,
    dim: tuple[int, ...] = (-2, -1),
    verbose: bool = False,
) -> torch.Tensor:
    r"""
    Corrects the global phase shift (and optionally magnitude scaling) of reconstructed complex signals to match the references.

    The optimal global phase shift and magnitude scaling is computed per batch entry and channel as:

    .. math::
        \theta = \arg \langle \hat{x}, x \rangle, \quad r = \frac{|\langle \hat{x}, x \rangle|}{\|\hat{x}\|^2},

    where :math:`\arg` denotes the angle of a complex number, :math:`\langle a, b \rangle = a^\mathrm{H} b` denotes the complex inner product and :math:`\|\cdot\|` denotes the Euclidean norm.

    This computation corresponds to the complex-scalar minimizer :math:`c = r \mathrm{e}^{i \theta}` of the following program:

    .. math::
        \min_{c} \|c \cdot \hat{x} - x\|^2,

    where :math:`\hat{x}` is the reconstructed signal and :math:`x` is the reference signal.

    The correction is then applied to the reconstructed signal per batch entry and channel as:

    .. math::
        \hat{x} \leftarrow r' \mathrm{e}^{\mathrm{i} \theta} \cdot \hat{x},

    with :math:`r' = r` if ``correct_magnitude`` is ``True`` and :math:`r' = 1` otherwise.

    :param torch.Tensor x_est: Estimated signals of shape ``(N, C, ...)``.
    :param torch.Tensor x_ref: Reference signals of shape ``(N, C, ...)``.
    :param bool correct_magnitude: If ``True``, also corrects the magnitude scaling in addition to the phase. Default is ``False``.
    :param tuple dim: Dimensions of the signals over which the inner product is computed. Default is ``(-2, -1)``.
    :param bool verbose: If ``True``, prints the applied phase shift and scale factor. Default is ``False``.

    :return: The phase-corrected (and optionally magnitude-corrected) signals of the same shape as ``x_est``.
    """
    if x_est.shape != x_ref.shape:  # pragma: no cover
        raise ValueError(
            f"The shapes of the signals should be the same, got {tuple(x_est.shape)} and {tuple(x_ref.shape)}."
        )

    inner = (x_est.conj() * x_ref).sum(dim=dim, keepdim=True)
    if correct_magnitude:
        energy = (x_est.abs() ** 2).sum(dim=dim, keepdim=True)
        c = inner / (energy + 1e-12)
    else:
        c = inner / (inner.abs() + 1e-12)
    if verbose:
        print(f"Applying global phase shift (radians):\n{c.angle().squeeze(dim)}")
        print(f"Scaling factor:\n{c.abs().squeeze(dim)}")
    return c * x_est


def cosine_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    r"""
    Compute the cosine similarity between two images.

    The cosine similarity is computed as:

    .. math::
        \text{cosine\_similarity} = \frac{a \cdot b}{\|a\| \cdot \|b\|}.

    The value range is [0,1], higher values indicate higher similarity.
    If one image is a scaled version of the other, i.e., :math:`a = c * b` where :math:`c` is a nonzero complex number, then the cosine similarity will be 1.

    :param torch.Tensor a: First image.
    :param torch.Tensor b: Second image.
    :return: The cosine similarity between the two images."""
    if a.shape != b.shape:  # pragma: no cover
        raise ValueError(f"Shape of Tensors are not equal.")
    a = a.flatten()
    b = b.flatten()
    norm_a = torch.sqrt(torch.dot(a.conj(), a).real)
    norm_b = torch.sqrt(torch.dot(b.conj(), b).real)
    return torch.abs(torch.dot(a.conj(), b)) / (norm_a * norm_b)


def spectral_methods(
    y: torch.Tensor,
    physics: Physics,
    x: torch.Tensor = None,
    n_iter: int = 50,
    preprocessing: Callable[
        [torch.Tensor, torch.Tensor], torch.Tensor
    ] = default_preprocessing,
    lamb: float = 10.0,
    x_true: torch.Tensor = None,
    log: bool = False,
    log_metric: Callable = cosine_similarity,
    early_stop: bool = True,
    rtol: float = 1e-5,
    verbose: bool = False,
):
    r"""
    Utility function for spectral methods.

    This function runs the Spectral Methods algorithm to find the principal eigenvector of the regularized weighted covariance matrix:
    
    .. math::
        M = \conj{B} \text{diag}(T(y)) B + \lambda I,
    
    where :math:`B` is the linear operator of the phase retrieval class, :math:`T(\cdot)` is a preprocessing function for the measurements, and :math:`I` is the identity matrix of corresponding dimensions. Parameter :math:`\lambda` tunes the strength of regularization.

    To find the principal eigenvector, the function runs power iteration which is given by

    .. math::
        x_{k+1} &= M x_k \\
        x_{k+1} &= \frac{x_{k+1}}{\|x_{k+1}\|}
        
    .. note::

        This function assumes that the passed `x` is of consistent shape and dtype with the output of `physics.A_adjoint(y)`.
  
    :param torch.Tensor y: Measurements.
    :param deepinv.physics.Physics physics: Instance of the physics modeling the forward matrix.
    :param torch.Tensor x: Initial guess for the signals :math:`x_0`.
    :param int n_iter: Number of iterations.
    :param Callable preprocessing: Function to preprocess the measurements. Default is :math:`\max(1 - 1/x, -5)`.
    :param float lamb: Regularization parameter. Default is 10.
    :param bool log: Whether to log the metrics. Default is False.
    :param Callable log_metric: Metric to log. Default is cosine similarity.
    :param bool early_stop: Whether to early stop the iterations. Default is True.
    :param float rtol: Relative tolerance for early stopping. Default is 1e-5.
    :param bool verbose: If True, prints information in case of an early stop. Default is False.

    :return: The estimated signals :math:`x`.
    """
    if x is None:
        # always use randn for initial guess, never use rand!
        x = physics.A_adjoint(y)
        x = torch.randn_like(x)

    if log is True:
        metrics = []

    #! estimate the norm of x using y
    #! for the i.i.d. case, we have norm(x) = sqrt(sum(y)/A_squared_mean)
    #! for the structured case, when the mean of the squared diagonal elements is 1, we have norm(x) = sqrt(sum(y)), otherwise y gets scaled by the mean to the power of number of layers
    norm_x = torch.sqrt(y.sum())

    # y should have mean 1
    y = y / torch.mean(y)
    diag_T = preprocessing(y, physics)
    diag_T = diag_T.to(x)

    for i in range(n_iter):
        x_new = physics.B(x)
        x_new = diag_T * x_new
        x_new = physics.B_adjoint(x_new)
        x_new = x_new + lamb * x
        x_new = x_new / torch.linalg.norm(x_new)
        if log:
            metrics.append(log_metric(x_new, x_true))
        if early_stop:
            if torch.linalg.norm(x_new - x) / torch.linalg.norm(x) < rtol:
                if verbose:
                    print(f"Power iteration early stopped at iteration {i}.")
                break
        x = x_new
    #! change the norm of x so that it matches the norm of true x
    x = x * norm_x
    if log:
        return x, metrics
    else:
        return x


def spectral_methods_wrapper(
    y: torch.Tensor, physics: Physics, n_iter: int = 5000, **kwargs
) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    r"""
    Wrapper for spectral methods.

    This function wrapper can be used as the custom_init option when building optimizers.

    :param torch.Tensor y: Measurements.
    :param deepinv.physics.Physics physics: Instance of the physics modeling the forward matrix.
    :param int n_iter: Number of iterations.

    :return: The estimated signals :math:`x` and :math:`z` packed in a dictionary.
    """
    x = spectral_methods(y, physics, n_iter=n_iter, **kwargs)
    z = x.detach().clone()
    return {"est": (x, z)}
