from ..layer import Layer
from euclid.settings import xp
from euclid.core.tensor import Tensor


class Conv2D(Layer):
    name = "Conv2D"

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
            2 / (in_channels * kernel_size * kernel_size)
        )

        self.weights = Tensor(
            xp.random.randn(
                out_channels,
                in_channels,
                kernel_size,
                kernel_size
            ) * scale,
            requires_grad=True
        )

        self.bias = Tensor(
            xp.zeros(out_channels),
            requires_grad=True
        )


    def im2col(self, x):
        # Deprecated: keep for compatibility but delegate to Tensor.im2col
        return x.im2col(self.kernel_size, self.stride, self.padding)

    def parameters(self):
        return [
            self.weights,
            self.bias
        ]

    def forward(self, x):

        # Use the Tensor.im2col implementation so autograd tracks
        # the mapping from input -> columns and computes input grads.
        cols = x.im2col(self.kernel_size, self.stride, self.padding)

        batch = x.data.shape[0]

        # compute output spatial dims
        kh, kw = self.kernel_size
        height, width = x.data.shape[2], x.data.shape[3]

        out_h = (
            height + 2*self.padding - kh
        ) // self.stride + 1

        out_w = (
            width + 2*self.padding - kw
        ) // self.stride + 1

        # flatten filters
        filters = self.weights.reshape(
            self.out_channels,
            -1
        )

        # convolution (cols is a Tensor with autograd)
        out = cols @ filters.T

        out = out + self.bias

        out = out.reshape(
            batch,
            out_h,
            out_w,
            self.out_channels
        )

        # channels first
        out = out.transpose(
            [0,3,1,2]
        )

        return out
    def get_config(self):
        return {
            "in_channels": self.in_channels,
            "out_channels": self.out_channels,
            "kernel_size": self.kernel_size[0],
            "stride": self.stride,
            "padding": self.padding
        }