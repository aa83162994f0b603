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

from ..typing import Callable
from ..utils.private import filter_values, get_layer
from .acorr import Autocorrelation
from .base import BaseFunctionalModule, Precomputed
from .levdur import LevinsonDurbin


class LinearPredictiveCodingAnalysis(BaseFunctionalModule):
    """See `this page <https://sp-nitech.github.io/sptk/latest/main/lpc.html>`_
    for details. Double precision is recommended.

    Parameters
    ----------
    frame_length : int > M
        The frame length, :math:`L`.

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
        frame_length: int,
        lpc_order: int,
        eps: float | None = None,
        device: torch.device | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()

        self._register_precomputed(self._precompute(**filter_values(locals())))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Perform LPC analysis.

        Parameters
        ----------
        x : Tensor [shape=(..., L)]
            The framed waveform.

        Returns
        -------
        out : Tensor [shape=(..., M+1)]
            The gain and LPC coefficients.

        Examples
        --------
        >>> import diffsptk
        >>> lpc = diffsptk.LPC(5, 2)
        >>> x = diffsptk.ramp(1, 5) * 0.1
        >>> a = lpc(x)
        >>> a
        tensor([ 0.5054, -0.8140,  0.1193])

        """
        return self._call_forward(x)

    @staticmethod
    def _func(x: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = LinearPredictiveCodingAnalysis._precompute(
            x.size(-1),
            *args,
            **kwargs,
            device=x.device,
            dtype=x.dtype,
            module=False,
        )
        return LinearPredictiveCodingAnalysis._apply_precomputed(_p, x=x)

    @staticmethod
    def _check() -> None:
        pass

    @staticmethod
    def _precompute(
        frame_length: int,
        lpc_order: int,
        eps: float | None,
        device: torch.device | None,
        dtype: torch.dtype | None,
        module: bool = True,
    ) -> Precomputed:
        LinearPredictiveCodingAnalysis._check()

        acorr = get_layer(
            module,
            Autocorrelation,
            dict(
                frame_length=frame_length,
                acr_order=lpc_order,
            ),
        )
        levdur = get_layer(
            module,
            LevinsonDurbin,
            dict(
                lpc_order=lpc_order,
                eps=eps,
                device=device,
                dtype=dtype,
            ),
        )
        return Precomputed(layers={"acorr": acorr, "levdur": levdur})

    @staticmethod
    def _forward(x: torch.Tensor, *, acorr: Callable, levdur: Callable) -> torch.Tensor:
        return levdur(acorr(x))
