from ..layer import Layer
from euclid.settings import xp
from euclid.core.tensor import Tensor


class MaxPool2D(Layer):
    name = "MaxPool2D"

    def __init__(
        self,
        kernel_size,
        stride=None
    ):
        super().__init__()

        if isinstance(kernel_size, tuple):
            self.kernel_size = kernel_size
        else:
            self.kernel_size = (
                kernel_size,
                kernel_size
            )

        if stride is None:
            self.stride = self.kernel_size
        elif isinstance(stride, tuple):
            self.stride = stride
        else:
            self.stride = (
                stride,
                stride
            )


    def forward(self, x):

        kh, kw = self.kernel_size
        sh, sw = self.stride

        batch, channels, height, width = x.data.shape


        out_h = (height - kh) // sh + 1
        out_w = (width - kw) // sw + 1


        # Create a view of every pooling window.  This keeps the operation on
        # the selected array backend instead of iterating over every example
        # and output pixel in Python (which made MNIST training impractical).
        data = x.data
        windows = xp.lib.stride_tricks.as_strided(
            data,
            shape=(batch, channels, out_h, out_w, kh, kw),
            strides=(
                data.strides[0],
                data.strides[1],
                data.strides[2] * sh,
                data.strides[3] * sw,
                data.strides[2],
                data.strides[3],
            ),
        )
        flat_windows = windows.reshape(batch, channels, out_h, out_w, kh * kw)
        max_indices = xp.argmax(flat_windows, axis=-1)
        out_data = xp.max(flat_windows, axis=-1)


        out = Tensor(
            out_data,
            requires_grad=x.requires_grad
        )


        def _backward():

            if not x.requires_grad:
                return

            if out.grad is None:
                return


            dx = xp.zeros_like(x.data)
            y_indices = (
                xp.arange(out_h)[None, None, :, None] * sh
                + max_indices // kw
            )
            x_indices = (
                xp.arange(out_w)[None, None, None, :] * sw
                + max_indices % kw
            )
            batch_indices = xp.arange(batch)[:, None, None, None]
            channel_indices = xp.arange(channels)[None, :, None, None]

            # add.at correctly accumulates gradients when pooling windows
            # overlap (stride smaller than kernel size).
            xp.add.at(
                dx,
                (batch_indices, channel_indices, y_indices, x_indices),
                out.grad,
            )


            if x.grad is None:
                x.grad = dx
            else:
                x.grad += dx


        out._backward = _backward
        out._prev = {x}

        return out
    def get_config(self):
        return super().get_config()
    