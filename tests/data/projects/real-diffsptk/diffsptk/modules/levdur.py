# ------------------------------------------------------------------------ #
# Copyright 2022 SPTK Working Group                                        #
#                                                                          #
# Licensed under the Apache License, Version 2.0 (the "License");          #
# you may not use this file except in compliance with the License.         #
# You may obtain a copy of the License at                                  #
#                                                                          #
#     http://www.apache.org/licenses/LICENSE-2.0                           #
#                                                                          #
# Unless required by applicable law or agreed to in writing, software      #
# distributed under the License is distributed on an "AS IS" BASIS,        #
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. #
# See the License for the specific language governing permissions and      #
# limitations under the License.                                           #
# ------------------------------------------------------------------------ #

import torch

from ..utils.private import check_size, filter_values, symmetric_toeplitz
from .base import BaseFunctionalModule, Precomputed


class LevinsonDurbin(BaseFunctionalModule):
    """See `this page <https://sp-nitech.github.io/sptk/latest/main/levdur.html>`_
    for details. The implementation is based on a simple matrix inversion.

    Parameters
    ----------
    lpc_order : int >= 0
        The order of the LPC coefficients, :math:`M`.

    eps : float >= 0 or None
        A small value to improve numerical stability. If None, automatically set
        based on the data type.

    device : torch.device or None
        The device of this module.

    dtype : torch.dtype or None
        The data type of this module.

    """

    _takes_input_size = True

    def __init__(
        self,
        lpc_order: int,
        eps: float | None = None,
        device: torch.device | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()

        self.in_dim = lpc_order + 1

        self._register_precomputed(self._precompute(**filter_values(locals())))

    def forward(self, r: torch.Tensor) -> torch.Tensor:
        """Solve a Yule-Walker linear system.

        Parameters
        ----------
        r : Tensor [shape=(..., M+1)]
            The autocorrelation.

        Returns
        -------
        out : Tensor [shape=(..., M+1)]
            The gain and the LPC coefficients.

        Examples
        --------
        >>> import diffsptk
        >>> acorr = diffsptk.Autocorrelation(5, 2)
        >>> levdur = diffsptk.LevinsonDurbin(2)
        >>> x = diffsptk.ramp(1, 5) * 0.1
        >>> a = levdur(acorr(x))
        >>> a
        tensor([ 0.5054, -0.8140,  0.1193])

        """
        check_size(r.size(-1), self.in_dim, "dimension of autocorrelation")
        return self._call_forward(r)

    @staticmethod
    def _func(r: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = LevinsonDurbin._precompute(
            r.size(-1) - 1, *args, **kwargs, device=r.device, dtype=r.dtype
        )
        return LevinsonDurbin._apply_precomputed(_p, r=r)

    @staticmethod
    def _check(lpc_order: int, eps: float | None) -> None:
        if lpc_order < 0:
            raise ValueError("lpc_order must be non-negative.")
        if eps is not None and eps < 0:
            raise ValueError("eps must be non-negative.")

    @staticmethod
    def _precompute(
        lpc_order: int,
        eps: float | None,
        device: torch.device | None,
        dtype: torch.dtype | None,
    ) -> Precomputed:
        LevinsonDurbin._check(lpc_order, eps)
        if eps is None:
            eps = 1e-5 if (dtype or torch.get_default_dtype()) == torch.float else 0
        eye = torch.eye(lpc_order, device=device, dtype=dtype) * eps
        return Precomputed(tensors={"eye": eye})

    @staticmethod
    def _forward(r: torch.Tensor, *, eye: torch.Tensor) -> torch.Tensor:
        r0, r1 = torch.split(r, [1, r.size(-1) - 1], dim=-1)

        # Make Toeplitz matrix.
        R = symmetric_toeplitz(r[..., :-1]) + eye  # [..., M, M]

        # Solve system.
        a = torch.linalg.solve(R, -r1.unsqueeze(-1)).squeeze(-1)

        # Compute gain.
        K = torch.sqrt((r1 * a).sum(-1, keepdim=True) + r0)

        a = torch.cat((K, a), dim=-1)
        return a
