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

from ..utils.private import check_size, filter_values, to
from .base import BaseFunctionalModule, Precomputed
from .freqt2 import SecondOrderAllPassFrequencyTransform


class SecondOrderAllPassInverseFrequencyTransform(BaseFunctionalModule):
    """Second-order all-pass inverse frequency transform module.

    Parameters
    ----------
    in_order : int >= 0
        The order of the input sequence, :math:`M_1`.

    out_order : int >= 0
        The order of the output sequence, :math:`M_2`.

    alpha : float in (-1, 1)
        The frequency warping factor, :math:`\\alpha`.

    theta : float in [0, 1]
        The emphasis frequency, :math:`\\theta`.

    n_fft : int >> M2
        The number of FFT bins. The accurate conversion requires the large value.

    device : torch.device or None
        The device of this module.

    dtype : torch.dtype or None
        The data type of this module.

    References
    ----------
    .. [1] T. Wakako et al., "Speech spectral estimation based on expansion of log
           spectrum by arbitrary basis functions," *IEICE Trans*, vol. J82-D-II, no. 12,
           pp. 2203-2211, 1999 (in Japanese).

    """

    _takes_input_size = True

    def __init__(
        self,
        in_order: int,
        out_order: int,
        alpha: float = 0,
        theta: float = 0,
        n_fft: int = 512,
        device: torch.device | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()

        self.in_dim = in_order + 1

        self._register_precomputed(self._precompute(**filter_values(locals())))

    def forward(self, c: torch.Tensor) -> torch.Tensor:
        """Perform second-order all-pass inverse frequency transform.

        Parameters
        ----------
        c : Tensor [shape=(..., M1+1)]
            The warped sequence.

        Returns
        -------
        out : Tensor [shape=(..., M2+1)]
            The output sequence.

        Examples
        --------
        >>> import diffsptk
        >>> import torch
        >>> freqt2 = diffsptk.SecondOrderAllPassFrequencyTransform(
        ...     3, 4, alpha=0.05, theta=0.3
        ... )
        >>> ifreqt2 = diffsptk.SecondOrderAllPassInverseFrequencyTransform(
        ...     4, 3, alpha=0.05, theta=0.3
        ... )
        >>> c1 = torch.tensor([0.8, 0.6, -1.0, -0.5])
        >>> c2 = ifreqt2(freqt2(c1))
        >>> c2
        tensor([ 0.8000,  0.6000, -1.0000, -0.5000])

        """
        check_size(c.size(-1), self.in_dim, "dimension of cepstrum")
        return self._call_forward(c)

    @staticmethod
    def _func(c: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = SecondOrderAllPassInverseFrequencyTransform._precompute(
            c.size(-1) - 1, *args, **kwargs, device=c.device, dtype=c.dtype
        )
        return SecondOrderAllPassInverseFrequencyTransform._apply_precomputed(_p, c=c)

    @staticmethod
    def _check(*args, **kwargs) -> None:
        SecondOrderAllPassFrequencyTransform._check(*args, **kwargs)

    @staticmethod
    def _precompute(
        in_order: int,
        out_order: int,
        alpha: float,
        theta: float,
        n_fft: int,
        device: torch.device | None,
        dtype: torch.dtype | None,
    ) -> Precomputed:
        SecondOrderAllPassInverseFrequencyTransform._check(
            in_order, out_order, alpha, theta
        )
        theta *= torch.pi
        k = torch.arange(n_fft, device=device, dtype=torch.double)
        omega = k * (2 * torch.pi / n_fft)
        ww = SecondOrderAllPassFrequencyTransform.warp(omega, alpha, theta)

        m1 = torch.arange(-in_order, in_order + 1, device=device, dtype=torch.double)
        wwm1 = ww.unsqueeze(-1) * m1.unsqueeze(0)
        real = torch.cos(wwm1)
        imag = -torch.sin(wwm1)

        A = torch.fft.ifft(torch.complex(real, imag), dim=0).real
        L = out_order + 1
        M = in_order + 1
        A[:L, M:] += A[:L, : (M - 1)].flip(1)
        A = A[:L, (M - 1) :]
        A[1:, 0] *= 2
        A[0, 1:] /= 2
        return Precomputed(tensors={"A": to(A.T, dtype=dtype)})

    @staticmethod
    def _forward(c: torch.Tensor, *, A: torch.Tensor) -> torch.Tensor:
        return torch.matmul(c, A)
