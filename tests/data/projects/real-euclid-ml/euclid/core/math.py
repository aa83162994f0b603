from euclid.settings import xp


def tensor(data, requires_grad=False):
    from euclid.core.tensor import Tensor
    return Tensor(data, requires_grad)


def ensure_tensor(x):
    from euclid.core.tensor import Tensor

    if isinstance(x, Tensor):
        return x

    return Tensor(x, False)


def add_grad(x, grad):
    if not x.requires_grad:
        return

    while grad.ndim > x.data.ndim:
        grad = xp.sum(grad, axis=0)

    for axis, size in enumerate(x.data.shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = xp.sum(
                grad,
                axis=axis,
                keepdims=True
            )

    if x.grad is None:
        x.grad = grad.copy()
    else:
        x.grad += grad


def im2col(x, kernel_size, stride=1, padding=0):
    kh, kw = kernel_size

    batch, channels, height, width = x.data.shape

    out_h = (height + 2 * padding - kh) // stride + 1
    out_w = (width + 2 * padding - kw) // stride + 1

    if padding:
        x_pad = xp.pad(
            x.data,
            (
                (0, 0),
                (0, 0),
                (padding, padding),
                (padding, padding)
            ),
            mode="constant"
        )
    else:
        x_pad = x.data

    shape = (
        batch,
        channels,
        kh,
        kw,
        out_h,
        out_w
    )

    strides = (
        x_pad.strides[0],
        x_pad.strides[1],
        x_pad.strides[2],
        x_pad.strides[3],
        x_pad.strides[2] * stride,
        x_pad.strides[3] * stride
    )

    windows = xp.lib.stride_tricks.as_strided(
        x_pad,
        shape=shape,
        strides=strides
    )

    cols = (
        windows
        .transpose(0, 4, 5, 1, 2, 3)
        .reshape(
            batch,
            out_h * out_w,
            channels * kh * kw
        )
    )

    out = tensor(
        cols,
        requires_grad=x.requires_grad
    )

    def _backward():
        if not x.requires_grad:
            return

        grad = out.grad.reshape(
            batch,
            out_h,
            out_w,
            channels,
            kh,
            kw
        )

        if padding == 0:
            if x.grad is None:
                x.grad = xp.zeros_like(x.data)

            for y in range(kh):
                for x_pos in range(kw):
                    x.grad[
                        :,
                        :,
                        y:y + out_h * stride:stride,
                        x_pos:x_pos + out_w * stride:stride
                    ] += grad[
                        :, :, :, :, y, x_pos
                    ].transpose(0, 3, 1, 2)

            return

        dx = xp.zeros_like(x_pad)

        for y in range(kh):
            for x_pos in range(kw):
                dx[
                    :,
                    :,
                    y:y + out_h * stride:stride,
                    x_pos:x_pos + out_w * stride:stride
                ] += grad[
                    :, :, :, :, y, x_pos
                ].transpose(0, 3, 1, 2)

        dx = dx[
            :,
            :,
            padding:-padding,
            padding:-padding
        ]

        if x.grad is None:
            x.grad = dx
        else:
            x.grad += dx

    out._backward = _backward
    out._prev = {x}

    return out


def col2im(
    x,
    output_shape,
    kernel_size,
    stride=1,
    padding=0
):
    batch, channels, height, width = output_shape
    kh, kw = kernel_size

    cols = x.data

    out_h = (height + 2 * padding - kh) // stride + 1
    out_w = (width + 2 * padding - kw) // stride + 1

    windows = cols.reshape(
        batch,
        out_h,
        out_w,
        channels,
        kh,
        kw
    )

    result = xp.zeros(
        output_shape,
        dtype=cols.dtype
    )

    for y in range(kh):
        for x_pos in range(kw):
            result[
                :,
                :,
                y:y + out_h * stride:stride,
                x_pos:x_pos + out_w * stride:stride
            ] += windows[
                :, :, :, :, y, x_pos
            ].transpose(0, 3, 1, 2)

    return result


def transpose(x, axes=None):
    out = tensor(
        x.data.transpose(axes),
        requires_grad=x.requires_grad
    )

    def _backward():
        if not x.requires_grad:
            return

        if x.grad is None:
            x.grad = xp.zeros_like(x.data)

        if axes is None:
            x.grad += out.grad.T
        else:
            inverse = [0] * len(axes)

            for i, axis in enumerate(axes):
                inverse[axis] = i

            x.grad += out.grad.transpose(
                tuple(inverse)
            )

    out._backward = _backward
    out._prev = {x}

    return out


def add(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        a.data + b.data,
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            add_grad(a, out.grad)

        if b.requires_grad:
            add_grad(b, out.grad)

    out._backward = _backward

    return out


def subtract(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        a.data - b.data,
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            add_grad(a, out.grad)

        if b.requires_grad:
            add_grad(b, -out.grad)

    out._backward = _backward

    return out


def multiply(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        a.data * b.data,
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            add_grad(
                a,
                b.data * out.grad
            )

        if b.requires_grad:
            add_grad(
                b,
                a.data * out.grad
            )

    out._backward = _backward

    return out


def divide(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        a.data / b.data,
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            add_grad(
                a,
                out.grad / b.data
            )

        if b.requires_grad:
            add_grad(
                b,
                -(out.data / b.data) * out.grad
            )

    out._backward = _backward

    return out


def power(a, exponent):
    a = ensure_tensor(a)

    out = tensor(
        a.data ** exponent,
        a.requires_grad
    )

    out._prev = {a}

    def _backward():
        if a.requires_grad:
            add_grad(
                a,
                exponent
                * (a.data ** (exponent - 1))
                * out.grad
            )

    out._backward = _backward

    return out


def matmul(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        a.data @ b.data,
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            if b.data.ndim == 2:
                grad_a = out.grad @ b.data.T
            else:
                grad_a = out.grad @ xp.swapaxes(
                    b.data,
                    -1,
                    -2
                )

            add_grad(a, grad_a)

        if b.requires_grad:
            if a.data.ndim == 2:
                grad_b = a.data.T @ out.grad
            else:
                grad_b = (
                    xp.swapaxes(
                        a.data,
                        -1,
                        -2
                    ) @ out.grad
                )

                if b.data.ndim < grad_b.ndim:
                    grad_b = xp.sum(
                        grad_b,
                        axis=0
                    )

            add_grad(b, grad_b)

    out._backward = _backward

    return out


def exp(x):
    x = ensure_tensor(x)

    value = xp.exp(x.data)

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                value * out.grad
            )

    out._backward = _backward

    return out


def log(x):
    x = ensure_tensor(x)

    eps = 1e-8

    out = tensor(
        xp.log(x.data + eps),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                out.grad / (x.data + eps)
            )

    out._backward = _backward

    return out


def sqrt(x):
    x = ensure_tensor(x)

    out = tensor(
        xp.sqrt(x.data),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                (0.5 / out.data) * out.grad
            )

    out._backward = _backward

    return out


def abs(x):
    x = ensure_tensor(x)

    out = tensor(
        xp.abs(x.data),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                xp.sign(x.data) * out.grad
            )

    out._backward = _backward

    return out


def sin(x):
    x = ensure_tensor(x)

    value = xp.sin(x.data)

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                xp.cos(x.data) * out.grad
            )

    out._backward = _backward

    return out


def cos(x):
    x = ensure_tensor(x)

    value = xp.cos(x.data)

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                -xp.sin(x.data) * out.grad
            )

    out._backward = _backward

    return out


def tan(x):
    x = ensure_tensor(x)

    value = xp.tan(x.data)

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                (1 + value * value) * out.grad
            )

    out._backward = _backward

    return out


def tanh(x):
    x = ensure_tensor(x)

    value = xp.tanh(x.data)

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                (1 - value * value) * out.grad
            )

    out._backward = _backward

    return out


def sigmoid(x):
    x = ensure_tensor(x)

    value = 1 / (1 + xp.exp(-x.data))

    out = tensor(
        value,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                value * (1 - value) * out.grad
            )

    out._backward = _backward

    return out


def relu(x):
    x = ensure_tensor(x)

    out = tensor(
        xp.maximum(0, x.data),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            grad = out.grad.copy()
            grad[x.data <= 0] = 0

            add_grad(x, grad)

    out._backward = _backward

    return out


def clip(x, minimum, maximum):
    x = ensure_tensor(x)
    minimum = ensure_tensor(minimum)
    maximum = ensure_tensor(maximum)

    out = tensor(
        xp.clip(
            x.data,
            minimum.data,
            maximum.data
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            grad = out.grad.copy()

            grad[
                (x.data < minimum.data) |
                (x.data > maximum.data)
            ] = 0

            add_grad(x, grad)

    out._backward = _backward

    return out


def where(condition, a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        xp.where(
            condition,
            a.data,
            b.data
        ),
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            add_grad(
                a,
                xp.where(
                    condition,
                    out.grad,
                    0
                )
            )

        if b.requires_grad:
            add_grad(
                b,
                xp.where(
                    condition,
                    0,
                    out.grad
                )
            )

    out._backward = _backward

    return out


def maximum(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        xp.maximum(
            a.data,
            b.data
        ),
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            grad = out.grad.copy()
            grad[a.data < b.data] = 0
            add_grad(a, grad)

        if b.requires_grad:
            grad = out.grad.copy()
            grad[b.data <= a.data] = 0
            add_grad(b, grad)

    out._backward = _backward

    return out


def minimum(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)

    out = tensor(
        xp.minimum(
            a.data,
            b.data
        ),
        a.requires_grad or b.requires_grad
    )

    out._prev = {a, b}

    def _backward():
        if a.requires_grad:
            grad = out.grad.copy()
            grad[a.data > b.data] = 0
            add_grad(a, grad)

        if b.requires_grad:
            grad = out.grad.copy()
            grad[b.data >= a.data] = 0
            add_grad(b, grad)

    out._backward = _backward

    return out


def get_item(t, index):
    t = ensure_tensor(t)

    out = tensor(
        t.data[index],
        requires_grad=t.requires_grad
    )

    def _backward():
        if not t.requires_grad:
            return

        if t.grad is None:
            t.grad = xp.zeros_like(t.data)

        try:
            xp.add.at(
                t.grad,
                index,
                out.grad
            )
        except AttributeError:
            t.grad[index] += out.grad

    out._backward = _backward
    out._prev = {t}

    return out


def max(x, axis=None, keepdims=False):
    x = ensure_tensor(x)

    out_data = xp.max(
        x.data,
        axis=axis,
        keepdims=keepdims
    )

    out = tensor(
        out_data,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if not x.requires_grad:
            return

        grad = out.grad

        if axis is None:
            mask = x.data == out_data

            if not keepdims:
                grad = xp.broadcast_to(
                    grad,
                    x.data.shape
                )

        else:
            reduced = out_data

            if not keepdims:
                axes = (
                    (axis,)
                    if isinstance(axis, int)
                    else tuple(axis)
                )

                for a in sorted(axes):
                    reduced = xp.expand_dims(
                        reduced,
                        a
                    )

                    grad = xp.expand_dims(
                        grad,
                        a
                    )

            reduced = xp.broadcast_to(
                reduced,
                x.data.shape
            )

            grad = xp.broadcast_to(
                grad,
                x.data.shape
            )

            mask = x.data == reduced

        add_grad(
            x,
            mask * grad
        )

    out._backward = _backward

    return out


def sum(x, axis=None, keepdims=False):
    x = ensure_tensor(x)

    out = tensor(
        xp.sum(
            x.data,
            axis=axis,
            keepdims=keepdims
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if not x.requires_grad:
            return

        grad = out.grad

        if axis is not None and not keepdims:
            axes = (
                (axis,)
                if isinstance(axis, int)
                else tuple(axis)
            )

            axes = tuple(
                a if a >= 0 else a + x.data.ndim
                for a in axes
            )

            for a in sorted(axes):
                grad = xp.expand_dims(
                    grad,
                    a
                )

        grad = xp.broadcast_to(
            grad,
            x.data.shape
        )

        add_grad(x, grad)

    out._backward = _backward

    return out


def mean(x, axis=None, keepdims=False):
    x = ensure_tensor(x)

    out = tensor(
        xp.mean(
            x.data,
            axis=axis,
            keepdims=keepdims
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if not x.requires_grad:
            return

        grad = out.grad

        if axis is None:
            count = x.data.size

        else:
            axes = (
                (axis,)
                if isinstance(axis, int)
                else tuple(axis)
            )

            axes = tuple(
                a if a >= 0 else a + x.data.ndim
                for a in axes
            )

            count = 1

            for a in axes:
                count *= x.data.shape[a]

            if not keepdims:
                for a in sorted(axes):
                    grad = xp.expand_dims(
                        grad,
                        a
                    )

        grad = grad / count

        grad = xp.broadcast_to(
            grad,
            x.data.shape
        )

        add_grad(x, grad)

    out._backward = _backward

    return out


def reshape(x, shape):
    x = ensure_tensor(x)

    out = tensor(
        x.data.reshape(shape),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                out.grad.reshape(
                    x.data.shape
                )
            )

    out._backward = _backward

    return out


def flatten(x):
    x = ensure_tensor(x)

    if x.data.ndim > 1:
        shape = (
            x.data.shape[0],
            -1
        )
    else:
        shape = (-1,)

    return reshape(x, shape)


def squeeze(x, axis=None):
    x = ensure_tensor(x)

    out = tensor(
        xp.squeeze(
            x.data,
            axis=axis
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                out.grad.reshape(
                    x.data.shape
                )
            )

    out._backward = _backward

    return out


def unsqueeze(x, axis):
    x = ensure_tensor(x)

    out = tensor(
        xp.expand_dims(
            x.data,
            axis
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                xp.squeeze(
                    out.grad,
                    axis=axis
                )
            )

    out._backward = _backward

    return out


def negate(x):
    x = ensure_tensor(x)

    out = tensor(
        -x.data,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if x.requires_grad:
            add_grad(
                x,
                -out.grad
            )

    out._backward = _backward

    return out

def less(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)
    return a.data < b.data


def less_equal(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)
    return a.data <= b.data


def greater(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)
    return a.data > b.data


def greater_equal(a, b):
    a = ensure_tensor(a)
    b = ensure_tensor(b)
    return a.data >= b.data


def upsample2d(x, scale_factor):
    x = ensure_tensor(x)

    out = tensor(
        xp.repeat(
            xp.repeat(
                x.data,
                scale_factor,
                axis=2
            ),
            scale_factor,
            axis=3
        ),
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if not x.requires_grad:
            return

        batch, channels, height, width = x.data.shape

        grad = out.grad.reshape(
            batch,
            channels,
            height,
            scale_factor,
            width,
            scale_factor
        )

        grad = xp.sum(
            grad,
            axis=(3, 5)
        )

        add_grad(x, grad)

    out._backward = _backward

    return out


def gather(x, indices, axis=-1):
    x = ensure_tensor(x)

    indices = (
        indices.data
        if hasattr(indices, "data")
        else xp.asarray(indices)
    )

    out_data = xp.take_along_axis(
        x.data,
        indices,
        axis=axis
    )

    out = tensor(
        out_data,
        x.requires_grad
    )

    out._prev = {x}

    def _backward():
        if not x.requires_grad:
            return

        if x.grad is None:
            x.grad = xp.zeros_like(x.data)

        xp.add.at(
            x.grad,
            tuple(
                indices if i == axis
                else xp.arange(x.data.shape[i]).reshape(
                    [-1 if j == i else 1 for j in range(x.data.ndim)]
                )
                for i in range(x.data.ndim)
            ),
            out.grad
        )

    out._backward = _backward

    return out


def detach(x):
    x = ensure_tensor(x)
    return tensor(x.data, requires_grad=False)