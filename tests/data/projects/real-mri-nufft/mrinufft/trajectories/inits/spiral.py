"""2D spiral trajectory initializations."""

import warnings
from typing import Any

import numpy as np
import numpy.linalg as nl
from numpy.polynomial import Polynomial
from numpy.typing import NDArray
from scipy.interpolate import CubicSpline

from mrinufft.trajectories.gradients import patch_center_anomaly
from mrinufft.trajectories.maths import R2D, is_from_fibonacci_sequence
from mrinufft.trajectories.utils import (
    KMAX,
    Acquisition,
    initialize_algebraic_spiral,
    initialize_tilt,
    normalize_trajectory,
)


def initialize_2D_spiral(
    Nc: int,
    Ns: int,
    tilt: str | float = "uniform",
    in_out: bool = False,
    nb_revolutions: float = 1.0,
    spiral: str | float = "archimedes",
    patch_center: bool = True,
) -> NDArray:
    """Initialize a 2D algebraic spiral trajectory.

    A generalized function that generates algebraic spirals defined
    through the :math:`r = a O^n` equality, with :math:`r` the radius,
    :math:`O` the polar angle and :math:`n` the spiral power.
    Common algebraic spirals include Archimedes, Fermat and Galilean spirals.

    Parameters
    ----------
    Nc : int
        Number of shots
    Ns : int
        Number of samples per shot
    tilt : Literal, float, optional
        Tilt of the shots, by default "uniform"
    in_out : bool, optional
        Whether to start from the center or not, by default False
    nb_revolutions : float, optional
        Number of revolutions, by default 1
    spiral : Literal, float, optional
        Spiral type or algebraic power, by default "archimedes"
    patch_center : bool, optional
        Whether the spiral anomaly at the center should be patched
        or not for spirals with `spiral` :math:`>2`, by default True

    Returns
    -------
    NDArray
        2D spiral trajectory

    Raises
    ------
    ValueError
        If `spiral` is negative.

    Notes
    -----
    Algebraic spirals with negative powers, like hyperbolic or
    lithuus spirals, show asymptotic behaviors around the center.
    It makes them irrelevant for MRI and therefore negative powers
    are not allowed as an argument.
    """
    # Check spiral power is not negative
    spiral_power = initialize_algebraic_spiral(spiral)
    if spiral_power <= 0:
        raise ValueError(f"Negative spiral definition is invalid (spiral={spiral}).")

    # Initialize a first shot in polar coordinates
    angles = 2 * np.pi * nb_revolutions * np.linspace(-1 if (in_out) else 0, 1, Ns)
    radius = np.abs(angles) ** spiral_power

    # Algebraic spirals with power coefficients superior to 1
    # have a non-monotonic gradient norm when varying the angle
    # over [0, +inf)
    def _update_shot(
        angles: NDArray,
        radius: NDArray,
        *args: Any,  # noqa ANN401
    ) -> NDArray:
        shot = np.sign(angles) * np.abs(radius) * np.exp(1j * np.abs(angles))
        return np.stack([shot.real, shot.imag], axis=-1)

    def _update_parameters(
        single_shot: NDArray,
        angles: NDArray,
        radius: NDArray,
        spiral_power: float,
    ) -> tuple:
        radius = nl.norm(single_shot, axis=-1)
        angles = np.sign(angles) * np.abs(radius) ** (1 / spiral_power)
        return angles, radius, spiral_power

    if spiral_power < 1 and patch_center:
        parameters = (angles, radius, spiral_power)
        learning_rate = min(
            1, spiral_power
        )  # because low spiral power requires higher accuracy
        _, parameters = patch_center_anomaly(
            parameters,
            update_shot=_update_shot,
            update_parameters=_update_parameters,
            in_out=in_out,
            learning_rate=learning_rate,
        )
        angles, radius, _ = parameters

    # Convert the first shot from polar to Cartesian coordinates
    trajectory = np.zeros((Nc, len(angles), 2))
    trajectory[0, :] = _update_shot(angles, radius)

    # Rotate the first shot Nc times
    rotation = R2D(initialize_tilt(tilt, Nc) / (1 + in_out)).T
    for i in range(1, Nc):
        trajectory[i] = trajectory[i - 1] @ rotation
    trajectory = KMAX * trajectory / np.max(nl.norm(trajectory, axis=-1))
    return trajectory


def initialize_2D_fibonacci_spiral(
    Nc: int, Ns: int, spiral_reduction: float = 1, patch_center: bool = True
) -> NDArray:
    """Initialize a 2D Fibonacci spiral trajectory.

    A non-algebraic spiral trajectory based on the Fibonacci sequence,
    reproducing the proposition from [CA99]_ in order to generate
    a uniform distribution with center-out shots.

    The number of shots is required to belong to the Fibonacci
    sequence for the trajectory definition to be relevant.

    Parameters
    ----------
    Nc : int
        Number of shots
    Ns : int
        Number of samples per shot
    spiral_reduction : float, optional
        Factor used to reduce the automatic spiral length, by default 1
    patch_center : bool, optional
        Whether the spiral anomaly at the center should be patched
        or not, by default True

    Returns
    -------
    NDArray
        2D Fibonacci spiral trajectory

    References
    ----------
    .. [CA99] Cline, Harvey E., and Thomas R. Anthony.
       "Uniform k-space sampling with an interleaved
       Fibonacci spiral acquisition."
       In Proceedings of the 7th Annual Meeting of ISMRM,
       Philadelphia, USA, vol. 1657. 1999.
    """
    # Check if Nc is in the Fibonacci sequence
    if not is_from_fibonacci_sequence(Nc):
        raise ValueError("Nc should belong to the Fibonacci sequence.")

    # Initialize all shots
    Ns_reduced = int(np.around(Ns / spiral_reduction))
    inter_range = np.arange(Nc).reshape((-1, 1))
    intra_range = np.arange(Ns_reduced).reshape((1, -1))
    phi_bonacci = (np.sqrt(5) - 1) / 2
    radius = np.sqrt((intra_range + (inter_range / Nc)) / (Nc * Ns_reduced))
    angles = 2j * np.pi * phi_bonacci * np.around(Nc * intra_range + inter_range)
    trajectory = radius * np.exp(angles)

    # Put Ns samples along reduced spirals if relevant
    if spiral_reduction != 1:
        reduced_x_axis = np.linspace(0, 1, Ns_reduced)
        normal_x_axis = np.linspace(0, 1, Ns)
        cbs = CubicSpline(reduced_x_axis, trajectory, axis=1)
        trajectory = cbs(normal_x_axis)

    # Normalize and reformat trajectory
    trajectory *= KMAX / np.max(np.abs(trajectory))
    trajectory = np.stack([trajectory.real, trajectory.imag], axis=-1)

    # Patch center anomaly if requested
    if patch_center:
        patched_trajectory = []
        for i in range(Nc):
            patched_shot, _ = patch_center_anomaly(trajectory[i], in_out=False)
            patched_trajectory.append(patched_shot)
        trajectory = np.array(patched_trajectory)
    return trajectory


def initialize_2D_vds_spiral(
    Nc: int,
    oversamp: int = 1,
    acq: Acquisition | None = None,
    Rmin: float = 1,
    Rmax: float = 1,
    Fcoeffs: list | tuple | NDArray | None = None,
    krmax: float | None = None,
    normalize: bool = True,
    in_out: bool = False,
):
    """Initialize a 2D variable density spiral (VDS) trajectory.

    A hardware-constrained spiral trajectory introduced by Lee, Hargreaves
    & Hu [Lee03]_, where the undersampling/acceleration factor increases
    linearly from Rmin at the center to Rmax at the edge of k-space.

    Parameters
    ----------
    Nc : int
        Number of interleaves for the spiral
    oversamp : int, optional
        Oversampling factor for the trajectory calculation, by default 1
    acq : Acquisition, optional
        Acquisition object defining the hardware constraints and imaging parameters,
        by default Acquisition.default
    Rmin : float, optional
        Minimum radial acceleration factor, by default 1
    Rmax : float, optional
        Maximum radial acceleration factor (reached at krmax), by default 1
    Fcoeffs : list | tuple | NDArray, optional
        Coefficients of the polynomial describing the radial acceleration factor
        F(r) = Fcoeffs[0] + Fcoeffs[1]*(r/krmax) + Fcoeffs[2]*(r/krmax)**2 + ...
        If None, it is set to [fov/Rmin, fov/Rmax-fov/Rmin] (linear from Rmin to Rmax)
    krmax : float, optional
        Maximum radius for the spiral. If normalize is True, this is in arbitrary units,
        else in 1/m. By default 0.5 when normalize is True.
    normalize : bool, optional
        Whether to normalize the trajectory to the resolution (True) or return in 1/m
        (False), by default True
    in_out : bool, optional
        Whether to start from the center or not, by default False

    Returns
    -------
    NDArray
        The 2D VDS spiral trajectory of shape (Nc, Ns, 2)

    Notes
    -----
    Adapted from Brian Hargreaves MATLAB implementation

    References
    ----------
    .. [Lee03] Lee, Jin Hyung, Brian A. Hargreaves, Bob S. Hu, and Dwight G. Nishimura.
       "Fast 3D imaging using variable-density spiral trajectories with applications to
       limb perfusion." Magnetic Resonance in Medicine 50, no. 6 (2003): 1276-1285.
    """
    if acq is None:
        acq = Acquisition.default
    if Fcoeffs is None:
        Fcoeffs = np.array([acq.fov[0] / Rmin, acq.fov[0] / Rmax - acq.fov[0] / Rmin])

    if normalize:
        krmax = krmax or 0.5  # in arbitrary units
        krmax = krmax / acq.res[0]  # convert to 1/m
    elif krmax is None:  # not normalized, but krmax not given
        krmax = 0.5 / acq.res[0]  # in 1/m
    To = acq.raster_time / oversamp

    # Pre-calculate polynomial derivatives
    # doubling the acceleration factor if in_out , as we will samples twice more.
    Fpoly = Polynomial(Fcoeffs) * (1 + in_out)
    dFpoly = Fpoly.deriv(1)
    kxy_max = 1 / (2 * acq.res[0])

    # Determine the number of steps based on a reasonable approximation
    # For a spiral, the number of points scales with the square of the radius.

    Nc = Nc * (1 + in_out)
    num_steps = oversamp * int(
        np.pi * kxy_max**2 / (Nc * acq.raster_time * acq.gamma * acq.gmax)
    )

    # Initialize NumPy arrays
    radius = np.zeros(num_steps)
    thetas = np.zeros(num_steps)

    r0, r1, q0, q1 = 0.0, 0.0, 0.0, 0.0
    i = 0
    while r0 < krmax:
        # Current time
        # Handle a step towards a new radius, check constraints
        F = Fpoly(r0 / krmax)
        twopiFoN = 2 * np.pi * F / Nc
        twopiFoN2 = twopiFoN**2
        dFdr = dFpoly(r0 / krmax) / krmax

        # Calculate max radius update based on gradient constraints
        Gmax = min(1 / (acq.gamma * F * To), acq.gmax * 0.99)
        max_r1 = np.sqrt((acq.gamma * Gmax) ** 2 / (1 + (twopiFoN * r0) ** 2))

        # Slew rate constraint logic
        if r1 > max_r1:
            r2 = (max_r1 - r1) / To
        else:
            A = 1 + twopiFoN2 * r0 * r0
            B = (
                2 * twopiFoN2 * r0 * r1 * r1
                + 2 * twopiFoN / F * dFdr * r1 * r1 * r0 * r0
            )
            C = (
                twopiFoN2**2 * r0 * r0 * r1**4
                + 4 * twopiFoN2 * r1**4
                + (2 * np.pi / Nc * dFdr) ** 2 * r0 * r0 * r1**4
                + 4 * twopiFoN2 / F * dFdr * r0 * r1**4
                - (acq.gamma) ** 2 * acq.smax**2
            )
            Disc = B**2 - 4 * A * C
            r2 = np.real((-B + np.emath.sqrt(Disc)) / (2 * A))

        # Update position and velocity
        q2 = 2 * np.pi / Nc * dFdr * r1**2 + twopiFoN * r2
        q1 += q2 * To
        q0 += q1 * To
        r1 += r2 * To
        r0 += r1 * To

        # Store results
        radius[i] = r0
        thetas[i] = q0

        # Break if radius exceeds max
        i += 1

        if i == len(radius):
            warnings.warn("Increasing size of allocated trajectory array")
            radius.resize(2 * len(radius), refcheck=False)
            thetas.resize(2 * len(thetas), refcheck=False)

    # Trim arrays to the actual number of points
    valid_points = np.where(radius > 0)[0]
    radius = radius[valid_points]
    thetas = thetas[valid_points]

    k = radius * np.exp(1j * thetas)
    k = k.view(np.float64).reshape(-1, 2)

    if in_out:
        k2 = radius * np.exp(1j * (np.pi + thetas))
        k2 = k2.view(np.float64).reshape(-1, 2)
        k = np.concatenate((k2[::-1], k), axis=0)
    Ns = len(k)
    Nc = Nc // (1 + in_out)  # back to original number of shots
    trajectory = np.zeros((Nc, Ns, 2))
    trajectory[0, :, :] = k
    # Rotate the first shot Nc times
    rotation = R2D(initialize_tilt("uniform", Nc) / (1 + in_out)).T
    for i in range(1, Nc):
        trajectory[i] = trajectory[i - 1] @ rotation
    if normalize:
        return normalize_trajectory(trajectory, acq=acq)

    return trajectory
