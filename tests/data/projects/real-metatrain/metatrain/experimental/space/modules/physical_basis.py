import copy

import numpy as np
from physical_basis import PhysicalBasis

from .splines import generate_splines


def get_physical_basis_spliner(E_max, r_cut, normalize):
    """Spline the physical basis functions for efficient evaluation.

    Also applies normalization in an attempt to make the variance close to 1 (see also
    the spherical harmonics normalization in :class:`Precomputer`).
    """
    l_max = 50
    n_max = 50

    # computational limit of the physical basis functions (basically zero beyond this)
    a = 10.0

    physical_basis = PhysicalBasis()
    E_ln = physical_basis.E_ln
    E_nl = E_ln.T
    l_max_new = np.where(E_nl[0, :] <= E_max)[0][-1]
    if l_max_new > l_max:
        raise ValueError("l_max too large, try decreasing E_max")
    else:
        l_max = l_max_new

    n_max_l = []
    for l in range(l_max + 1):  # noqa: E741
        n_max_l.append(np.where(E_nl[:, l] <= E_max)[0][-1] + 1)
    if n_max_l[0] > n_max:
        raise ValueError("n_max too large, try decreasing max_eigenvalue")

    def function_for_splining(n, l, x):  # noqa: E741
        ret = physical_basis.compute(n, l, x)
        if normalize:
            # normalize by square root of sphere volume, excluding sqrt(4pi) which is
            # included in the SH
            ret *= np.sqrt((1 / 3) * r_cut**3)
        return ret

    def function_for_splining_derivative(n, l, x):  # noqa: E741
        ret = physical_basis.compute_derivative(n, l, x)
        if normalize:
            # normalize by square root of sphere volume, excluding sqrt(4pi) which is
            # included in the SH
            ret *= np.sqrt((1 / 3) * r_cut**3)
        return ret

    def flat_index_to_nl(index, n_max_l):
        n = copy.deepcopy(index)
        for l in range(l_max + 1):  # noqa: E741
            n -= n_max_l[l]
            if n < 0:
                break
        return n + n_max_l[l], l

    def function_for_splining_index(index, r):
        n, l = flat_index_to_nl(index, n_max_l)  # noqa: E741
        return function_for_splining(n, l, r)

    def function_for_splining_index_derivative(index, r):
        n, l = flat_index_to_nl(index, n_max_l)  # noqa: E741
        return function_for_splining_derivative(n, l, r)

    spliner = generate_splines(
        function_for_splining_index,
        function_for_splining_index_derivative,
        np.sum(n_max_l),
        a,
    )

    n_max_l = [int(n_max) for n_max in n_max_l]
    return n_max_l, spliner
