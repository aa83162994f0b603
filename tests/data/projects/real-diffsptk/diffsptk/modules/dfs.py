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

from typing import cast

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..typing import ArrayLike
from ..utils.private import filter_values, iir, remove_gain, to, to_3d
from .base import BaseFunctionalModule, Precomputed


class InfiniteImpulseResponseDigitalFilter(BaseFunctionalModule):
    """See `this page <https://sp-nitech.github.io/sptk/latest/main/dfs.html>`_
    for details.

    Parameters
    ----------
    b : List [shape=(M+1,)] or None
        The numerator coefficients.

    a : List [shape=(N+1,)] or None
        The denominator coefficients.

    ir_length : int >= 1 or None
        The length of the truncated impulse response. If given, the filter is
        approximated by an FIR filter.

    learnable : bool
        If True, the filter coefficients are learnable.

    device : torch.device or None
        The device of this module.

    dtype : torch.dtype or None
        The data type of this module.

    """

    def __init__(
        self,
        b: ArrayLike | None = None,
        a: ArrayLike | None = None,
        ir_length: int | None = None,
        learnable: bool = False,
        device: torch.device | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()

        tensors = self._precompute(
            **filter_values(locals(), drop_keys=["learnable"])
        ).tensors
        if learnable and b is not None:
            self.b = nn.Parameter(tensors["b"])
        else:
            self.register_buffer("b", tensors["b"], persistent=False)
        if learnable and a is not None:
            self.a = nn.Parameter(tensors["a"])
        else:
            self.register_buffer("a", tensors["a"], persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply an IIR digital filter to the input waveform.

        Parameters
        ----------
        x : Tensor [shape=(..., T)]
            The input waveform.

        Returns
        -------
        out : Tensor [shape=(..., T)]
            The filtered waveform.

        Examples
        --------
        >>> import diffsptk
        >>> dfs = diffsptk.IIR(b=[1, -0.97])
        >>> x = diffsptk.ramp(4)
        >>> y = dfs(x)
        >>> y
        tensor([0.0000, 1.0000, 1.0300, 1.0600, 1.0900])

        """
        return self._call_forward(x)

    @staticmethod
    def _func(x: torch.Tensor, *args, **kwargs) -> torch.Tensor:
        _p = InfiniteImpulseResponseDigitalFilter._precompute(
            *args, **kwargs, device=x.device, dtype=x.dtype
        )
        return InfiniteImpulseResponseDigitalFilter._apply_precomputed(_p, x=x)

    @staticmethod
    def _check(ir_length: int | None) -> None:
        if ir_length is not None and ir_length <= 0:
            raise ValueError("ir_length must be positive.")

    @staticmethod
    def _precompute(
        b: ArrayLike | None,
        a: ArrayLike | None,
        ir_length: int | None,
        device: torch.device | None,
        dtype: torch.dtype | None,
    ) -> Precomputed:
        InfiniteImpulseResponseDigitalFilter._check(ir_length)

        b_ary: ArrayLike = [1] if b is None else b
        a_ary: ArrayLike = [1] if a is None else a
        b_coef = (
            cast(torch.Tensor, b_ary)
            if torch.is_tensor(b_ary)
            else to(np.asarray(b_ary), device=device, dtype=dtype)
        )
        a_coef = (
            cast(torch.Tensor, a_ary)
            if torch.is_tensor(a_ary)
            else to(np.asarray(a_ary), device=device, dtype=dtype)
        )

        if a is None:
            b_coef = b_coef.view(1, 1, -1).flip(-1)
            a_coef = torch.empty(0)
        elif ir_length is not None:
            # Pre-compute the truncated impulse response.
            d = torch.zeros(
                max(len(b_coef), len(a_coef)), device=device, dtype=torch.double
            )
            h = torch.empty(ir_length, device=device, dtype=torch.double)
            a0 = a_coef[0]
            a1 = a_coef[1:]
            for t in range(ir_length):
                x = a0 if t == 0 else 0
                y = x - torch.sum(d[: len(a1)] * a1)
                d = torch.roll(d, 1)
                d[0] = y
                y = torch.sum(d[: len(b_coef)] * b_coef)
                h[t] = y
            h = h.view(1, 1, -1).flip(-1)
            b_coef = to(h, dtype=dtype)
            a_coef = torch.empty(0)
        return Precomputed(tensors={"b": b_coef, "a": a_coef})

    @staticmethod
    def _forward(x: torch.Tensor, *, b: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        if len(a) == 0:
            y = to_3d(x)
            y = F.pad(y, (b.size(-1) - 1, 0))
            y = F.conv1d(y, b)
            y = y.view_as(x)
        else:
            K, a = remove_gain(a, return_gain=True)
            y = iir(x, K * b, a)
        return y
