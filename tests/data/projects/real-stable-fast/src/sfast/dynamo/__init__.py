from .backends.registry import _lazy_import

_lazy_import()