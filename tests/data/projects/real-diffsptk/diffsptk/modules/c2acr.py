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

from ..utils.private import check_size, filter_values
from .base import BaseFunctionalModule, Precomputed


class CepstrumToAutocorrelation(BaseFunctionalModule):
    """See `this page <https://sp-nitech.github.io/sptk/latest/main/c2acr.html>`_
    for details.

    Parameters
    ----------
    cep_order : int >= 0
        The order of the cepstrum, :math:`M`.

    acr_order : int >= 0
        The order of the autocorrelation, :math:`N`.

    n_fft : int >> N
        The number of FFT bins used for conversion. The accurate conversion requires the
        large value.

    """

    _takes_input_size = True

    def __init__(self, cep_order: int, acr_order: int, n_fft: int = 512) -> None:
        super().__init__()

        self.in_dim = cep_order + 1

        self._register_precomputed(self._precompute(**filter_values(locals())))

    def forward(self, c: torch.Tensor) -> torch.Tensor:
        """Convert cepstrum to autocorrelation.

        Parameters
        ----------
        c : Tensor [shape=(..., M+1)]
            The cepstral coefficients.

        Returns
        -------
        out : Tensor [shape=(..., N+1)]
            The autocorrelation.

        Examples
        --------
        >>> import diffsptk
        >>> import torch
        >>> c2acr = diffsptk.CepstrumToAutocorrelation(4, 3)
        >>> c = torch.tensor([0.5, -0.3, 0.2, -0.1, 0.05])
        >>> r = c2acr(c)
        >>> r
        tensor([ 3.2404, -1.1920,  0.9037, -0.5838])

        """
        check_size(c.size(-1), self.in_dim, "dimension of cepstrum")
        return self._call_forward(c)

    @staticmethod
    def _func(c: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = CepstrumToAutocorrelation._precompute(c.size(-1) - 1, *args, **kwargs)
        return CepstrumToAutocorrelation._apply_precomputed(_p, c=c)

    @staticmethod
    def _check(cep_order: int, acr_order: int, n_fft: int) -> None:
        if cep_order < 0:
            raise ValueError("cep_order must be non-negative.")
        if acr_order < 0:
            raise ValueError("acr_order must be non-negative.")
        if n_fft < max(cep_order + 1, acr_order + 1):
            raise ValueError("n_fft must be large value.")

    @staticmethod
    def _precompute(cep_order: int, acr_order: int, n_fft: int) -> Precomputed:
        CepstrumToAutocorrelation._check(cep_order, acr_order, n_fft)
        return Precomputed(values={"acr_order": acr_order, "n_fft": n_fft})

    @staticmethod
    def _forward(c: torch.Tensor, *, acr_order: int, n_fft: int) -> torch.Tensor:
        x = torch.fft.rfft(c, n=n_fft).real
        x = torch.exp(2 * x)
        r = torch.fft.hfft(x, norm="forward")[..., : acr_order + 1]
        return r
