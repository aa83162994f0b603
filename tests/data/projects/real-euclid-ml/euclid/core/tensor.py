import euclid.settings
import euclid.core.math as math

from euclid.settings import xp


def _as_backend_array(data, dtype=None):
    backend = euclid.settings._backend

    if data is None:
        raise ValueError("Tensor data cannot be None")

    if hasattr(data, "dtype") and hasattr(data, "shape"):
        if getattr(data, "__class__", None).__module__.startswith(backend.__name__):
            if dtype is not None and getattr(data, "dtype", None) != dtype:
                try:
                    return backend.asarray(data, dtype=dtype)
                except Exception:
                    return data.astype(dtype)
            return data

    if hasattr(data, "get") and backend is __import__("numpy"):
        try:
            data = data.get()
        except Exception:
            pass

    try:
        return backend.asarray(data, dtype=dtype)
    except Exception:
        if hasattr(data, "get"):
            try:
                data = data.get()
            except Exception:
                pass
        return __import__("numpy").asarray(data, dtype=dtype)


class Tensor:
    def __init__(self, data, requires_grad=False):
        self.data = _as_backend_array(data, euclid.settings.dtype)
        self.requires_grad = requires_grad
        self.grad = None
        self._backward = lambda: None
        self._prev = set()

    def __repr__(self):
        return f"Tensor({self.data})"

    def zero_grad(self):
        self.grad = None

    def im2col(self, kernel_size, stride=1, padding=0):
        return math.im2col(
            self,
            kernel_size,
            stride,
            padding
        )

    def col2im(
        self,
        output_shape,
        kernel_size,
        stride=1,
        padding=0
    ):
        return math.col2im(
            self,
            output_shape,
            kernel_size,
            stride,
            padding
        )

    def upsample2d(self, scale_factor=2):
        return math.upsample2d(
            self,
            scale_factor
        )

    def gather(self, axis, indices):
        return math.gather(
            self,
            axis,
            indices
        )

    def __getitem__(self, index):
        return math.get_item(
            self,
            index
        )

    def detach(self):
        return math.detach(self)

    def sum(self, axis=None, keepdims=False):
        return math.sum(
            self,
            axis,
            keepdims
        )

    def mean(self, axis=None, keepdims=False):
        return math.mean(
            self,
            axis,
            keepdims
        )

    def max(self, axis=None, keepdims=False):
        return math.max(
            self,
            axis,
            keepdims
        )

    def minimum(self, other):
        return math.minimum(
            self,
            other
        )

    def maximum(self, other):
        return math.maximum(
            self,
            other
        )

    def cupy(self):
        return self.data

    def __add__(self, other):
        return math.add(
            self,
            other
        )

    def __radd__(self, other):
        return math.add(
            other,
            self
        )

    def __sub__(self, other):
        return math.subtract(
            self,
            other
        )

    def __rsub__(self, other):
        return math.subtract(
            other,
            self
        )

    def __mul__(self, other):
        return math.multiply(
            self,
            other
        )

    def __rmul__(self, other):
        return math.multiply(
            other,
            self
        )

    def __truediv__(self, other):
        return math.divide(
            self,
            other
        )

    def __rtruediv__(self, other):
        return math.divide(
            other,
            self
        )

    def __pow__(self, power):
        return math.power(
            self,
            power
        )

    def __neg__(self):
        return math.negate(self)

    def __matmul__(self, other):
        return math.matmul(
            self,
            other
        )

    def matmul(self, other):
        return math.matmul(
            self,
            other
        )

    @property
    def T(self):
        return math.transpose(self)

    def transpose(self, axes=None):
        return math.transpose(
            self,
            axes
        )

    def reshape(self, *shape):
        return math.reshape(
            self,
            shape
        )

    def flatten(self):
        return math.flatten(self)

    def squeeze(self, axis=None):
        return math.squeeze(
            self,
            axis
        )

    def unsqueeze(self, axis):
        return math.unsqueeze(
            self,
            axis
        )

    def exp(self):
        return math.exp(self)

    def log(self):
        return math.log(self)

    def sqrt(self):
        return math.sqrt(self)

    def abs(self):
        return math.abs(self)

    def sin(self):
        return math.sin(self)

    def cos(self):
        return math.cos(self)

    def tan(self):
        return math.tan(self)

    def tanh(self):
        return math.tanh(self)

    def sigmoid(self):
        return math.sigmoid(self)

    def relu(self):
        return math.relu(self)

    def clip(self, min_value, max_value):
        return math.clip(
            self,
            min_value,
            max_value
        )

    def where(self, condition, other):
        return math.where(
            condition,
            self,
            other
        )

    def __lt__(self, other):
        return math.less(
            self,
            other
        )

    def __le__(self, other):
        return math.less_equal(
            self,
            other
        )

    def __gt__(self, other):
        return math.greater(
            self,
            other
        )

    def __ge__(self, other):
        return math.greater_equal(
            self,
            other
        )

    def backward(self):
        topo = []
        visited = set()

        def build(node):
            if node not in visited:
                visited.add(node)

                for child in node._prev:
                    build(child)

                topo.append(node)

        build(self)

        self.grad = xp.ones_like(self.data)

        for node in reversed(topo):
            node._backward()
            node._backward = lambda: None
            node._prev.clear()

        topo.clear()
        visited.clear()
