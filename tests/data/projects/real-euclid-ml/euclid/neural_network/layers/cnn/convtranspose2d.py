from ..layer import Layer
from euclid.settings import xp
from euclid.core.tensor import Tensor


class Conv2DTranspose(Layer):
    name = "Conv2DTranspose"

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0
    ):
        super().__init__()

        self.in_channels = in_channels
        self.out_channels = out_channels

        self.kernel_size = (
            kernel_size,
            kernel_size
        )

        self.stride = stride
        self.padding = padding

        scale = xp.sqrt(
            2 / (
                in_channels
                * kernel_size
                * kernel_size
            )
        )

        # [Cin, Cout, KH, KW]
        self.weights = Tensor(
            (
                xp.random.randn(
                    in_channels,
                    out_channels,
                    kernel_size,
                    kernel_size
                ) * scale
            ).astype(xp.float32),
            requires_grad=True
        )

        self.bias = Tensor(
            xp.zeros(
                out_channels,
                dtype=xp.float32
            ),
            requires_grad=True
        )
    def parameters(self):
        return [
            self.weights,
            self.bias
        ]

    def forward(self, x):

        batch, _, height, width = x.data.shape

        kh, kw = self.kernel_size

        out_h = (
            (height - 1) * self.stride
            - 2 * self.padding
            + kh
        )

        out_w = (
            (width - 1) * self.stride
            - 2 * self.padding
            + kw
        )

        out_data = xp.zeros(
            (
                batch,
                self.out_channels,
                out_h,
                out_w
            ),
            dtype=x.data.dtype
        )

        # -------------------------------------------------
        # Forward
        # -------------------------------------------------

        for ky in range(kh):

            y = (
                xp.arange(height) * self.stride
                + ky
                - self.padding
            )

            valid_y = (
                (y >= 0)
                & (y < out_h)
            )

            iy = xp.nonzero(valid_y)[0]
            oy = y[valid_y]

            for kx in range(kw):

                x_pos = (
                    xp.arange(width) * self.stride
                    + kx
                    - self.padding
                )

                valid_x = (
                    (x_pos >= 0)
                    & (x_pos < out_w)
                )

                ix = xp.nonzero(valid_x)[0]
                ox = x_pos[valid_x]

                if len(iy) == 0 or len(ix) == 0:
                    continue

                # [B, Cin, Iy, Ix]
                values = x.data[
                    :,
                    :,
                    iy[:, None],
                    ix[None, :]
                ]

                # [Cin, Cout]
                kernel = self.weights.data[
                    :,
                    :,
                    ky,
                    kx
                ]

                # B,Cin,Iy,Ix × Cin,Cout
                contribution = xp.einsum(
                    "bcij,co->boij",
                    values,
                    kernel
                )

                out_data[
                    :,
                    :,
                    oy[:, None],
                    ox[None, :]
                ] += contribution

        out_data += self.bias.data[
            None,
            :,
            None,
            None
        ]

        out = Tensor(
            out_data,
            requires_grad=(
                x.requires_grad
                or self.weights.requires_grad
                or self.bias.requires_grad
            )
        )

        # -------------------------------------------------
        # Backward
        # -------------------------------------------------

        def _backward():

            if out.grad is None:
                return

            grad = out.grad

            dx = None
            dw = None
            db = None

            if x.requires_grad:
                dx = xp.zeros_like(x.data)

            if self.weights.requires_grad:
                dw = xp.zeros_like(
                    self.weights.data
                )

            if self.bias.requires_grad:
                db = xp.sum(
                    grad,
                    axis=(0, 2, 3)
                )

            for ky in range(kh):

                y = (
                    xp.arange(height) * self.stride
                    + ky
                    - self.padding
                )

                valid_y = (
                    (y >= 0)
                    & (y < out_h)
                )

                iy = xp.nonzero(valid_y)[0]
                oy = y[valid_y]

                for kx in range(kw):

                    x_pos = (
                        xp.arange(width) * self.stride
                        + kx
                        - self.padding
                    )

                    valid_x = (
                        (x_pos >= 0)
                        & (x_pos < out_w)
                    )

                    ix = xp.nonzero(valid_x)[0]
                    ox = x_pos[valid_x]

                    if len(iy) == 0 or len(ix) == 0:
                        continue

                    # [B, Cout, Iy, Ix]
                    go = grad[
                        :,
                        :,
                        oy[:, None],
                        ox[None, :]
                    ]

                    kernel = self.weights.data[
                        :,
                        :,
                        ky,
                        kx
                    ]

                    # -----------------------------
                    # Gradient wrt input
                    # -----------------------------

                    if dx is not None:

                        # [B,Cout,Iy,Ix] × [Cin,Cout]
                        dx_part = xp.einsum(
                            "boij,co->bcij",
                            go,
                            kernel
                        )

                        dx[
                            :,
                            :,
                            iy[:, None],
                            ix[None, :]
                        ] += dx_part

                    # -----------------------------
                    # Gradient wrt weights
                    # -----------------------------

                    if dw is not None:

                        values = x.data[
                            :,
                            :,
                            iy[:, None],
                            ix[None, :]
                        ]

                        dw[
                            :,
                            :,
                            ky,
                            kx
                        ] += xp.einsum(
                            "bcij,boij->co",
                            values,
                            go
                        )

            if x.requires_grad:

                if x.grad is None:
                    x.grad = dx
                else:
                    x.grad += dx

            if self.weights.requires_grad:

                if self.weights.grad is None:
                    self.weights.grad = dw
                else:
                    self.weights.grad += dw

            if self.bias.requires_grad:

                if self.bias.grad is None:
                    self.bias.grad = db
                else:
                    self.bias.grad += db

        out._backward = _backward
        out._prev = {
            x,
            self.weights,
            self.bias
        }

        return out

    def get_config(self):
        return {
            "in_channels": self.in_channels,
            "out_channels": self.out_channels,
            "kernel_size": self.kernel_size[0],
            "stride": self.stride,
            "padding": self.padding
        }