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

import numpy as np
import torch

from ..typing import Callable
from ..utils.private import check_size, filter_values, to
from .base import BaseFunctionalModule, Precomputed

LOG_ZERO = -1.0e10


class LineSpectralPairsToSpectrum(BaseFunctionalModule):
    """See `this page <https://sp-nitech.github.io/sptk/latest/main/mglsp2sp.html>`_
    for details.

    Parameters
    ----------
    lsp_order : int >= 0
        The order of the line spectral pairs, :math:`M`.

    fft_length : int >= 2
        The number of FFT bins, :math:`L`.

    alpha : float in (-1, 1)
        The warping factor, :math:`\\alpha`.

    gamma : float in [-1, 0)
        The gamma parameter, :math:`\\gamma`.

    log_gain : bool
        If True, assume the input gain is in logarithmic scale.

    out_format : ['db', 'log-magnitude', 'magnitude', 'power']
        The output format.

    device : torch.device or None
        The device of this module.

    dtype : torch.dtype or None
        The data type of this module.

    References
    ----------
    .. [1] A. V. Oppenheim et al., "Discrete representation of signals," *Proceedings of
           the IEEE*, vol. 60, no. 6, pp. 681-691, 1972.

    .. [2] N. Sugamura et al., "Speech data compression by LSP speech analysis-synthesis
           technique," *IEICE trans*, vol. J64-A, no. 8, pp. 599-606, 1981.

    """

    _takes_input_size = True

    def __init__(
        self,
        lsp_order: int,
        fft_length: int,
        alpha: float = 0,
        gamma: float = -1,
        log_gain: bool = False,
        out_format: str | int = "power",
        device: torch.device | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()

        self.in_dim = lsp_order + 1

        self._register_precomputed(self._precompute(**filter_values(locals())))

    def forward(self, w: torch.Tensor) -> torch.Tensor:
        """Convert line spectral pairs to spectrum.

        Parameters
        ----------
        w : Tensor [shape=(..., M+1)]
            The line spectral pairs in radians.

        Returns
        -------
        out : Tensor [shape=(..., L/2+1)]
            The spectrum.

        Examples
        --------
        >>> import diffsptk
        >>> lpc = diffsptk.LPC(5, 2)
        >>> lpc2lsp = diffsptk.LinearPredictiveCoefficientsToLineSpectralPairs(2)
        >>> lsp2sp = diffsptk.LineSpectralPairsToSpectrum(2, 8)
        >>> x = diffsptk.ramp(1, 5) * 0.1
        >>> a = lpc(x)
        >>> w = lpc2lsp(a)
        >>> sp = lsp2sp(w)
        >>> sp
        tensor([2.7407, 0.6577, 0.1776, 0.0861, 0.0683])

        """
        check_size(w.size(-1), self.in_dim, "dimension of LSP")
        return self._call_forward(w)

    @staticmethod
    def _func(w: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = LineSpectralPairsToSpectrum._precompute(
            w.size(-1) - 1, *args, **kwargs, device=w.device, dtype=w.dtype
        )
        return LineSpectralPairsToSpectrum._apply_precomputed(_p, w=w)

    @staticmethod
    def _check(lsp_order: int, fft_length: int, alpha: float, gamma: float) -> None:
        if lsp_order < 0:
            raise ValueError("lsp_order must be non-negative.")
        if fft_length <= 1:
            raise ValueError("fft_length must be greater than 1.")
        if 1 <= abs(alpha):
            raise ValueError("alpha must be in (-1, 1).")
        if not (-1 <= gamma < 0):
            raise ValueError("gamma must be in [-1, 0).")

    @staticmethod
    def _precompute(
        lsp_order: int,
        fft_length: int,
        alpha: float,
        gamma: float,
        log_gain: bool,
        out_format: str | int,
        dtype: torch.dtype | None,
        device: torch.device | None,
    ) -> Precomputed:
        LineSpectralPairsToSpectrum._check(lsp_order, fft_length, alpha, gamma)

        if out_format in (0, "db"):
            formatter = lambda x: x * (20 / np.log(10))
        elif out_format in (1, "log-magnitude"):
            formatter = lambda x: x
        elif out_format in (2, "magnitude"):
            formatter = lambda x: torch.exp(x)
        elif out_format in (3, "power"):
            formatter = lambda x: torch.exp(2 * x)
        else:
            raise ValueError(f"out_format {out_format} is not supported.")

        c1 = 0.5 / gamma
        c2 = np.log(2) * (lsp_order if lsp_order % 2 == 0 else (lsp_order - 1))

        omega = torch.linspace(
            0, torch.pi, fft_length // 2 + 1, device=device, dtype=torch.double
        )
        warped_omega = omega + 2 * torch.atan(
            alpha * torch.sin(omega) / (1 - alpha * torch.cos(omega))
        )
        cos_omega = torch.cos(warped_omega).view(-1, 1)
        cos_omega = to(cos_omega, dtype=dtype)

        def floor_log(x):
            return torch.nan_to_num(torch.log(x), nan=LOG_ZERO, neginf=LOG_ZERO)

        if lsp_order % 2 == 0:
            p = floor_log(torch.sin(0.5 * warped_omega))
            q = floor_log(torch.cos(0.5 * warped_omega))
        else:
            p = floor_log(torch.sin(warped_omega))
            q = torch.zeros_like(warped_omega)
        p_bias = to(p, dtype=dtype)
        q_bias = to(q, dtype=dtype)

        return Precomputed(
            values={"log_gain": log_gain, "formatter": formatter, "c1": c1, "c2": c2},
            tensors={"cos_omega": cos_omega, "p_bias": p_bias, "q_bias": q_bias},
        )

    @staticmethod
    def _forward(
        w: torch.Tensor,
        *,
        log_gain: bool,
        formatter: Callable,
        c1: float,
        c2: float,
        cos_omega: torch.Tensor,
        p_bias: torch.Tensor,
        q_bias: torch.Tensor,
    ) -> torch.Tensor:
        def floor_log(x):
            return torch.clip(torch.log(x), min=LOG_ZERO)

        K, w = torch.split(w, [1, w.size(-1) - 1], dim=-1)
        if not log_gain:
            K = floor_log(K)

        cos_w = torch.cos(w).unsqueeze(-2)
        pq = floor_log(torch.abs(cos_omega - cos_w))  # [..., L/2+1, M]
        p = pq[..., 1::2].sum(-1)
        q = pq[..., 0::2].sum(-1)
        r = torch.logsumexp(2 * torch.stack([p + p_bias, q + q_bias], dim=-1), dim=-1)
        sp = K + c1 * (c2 + r)
        sp = formatter(sp)
        return sp
