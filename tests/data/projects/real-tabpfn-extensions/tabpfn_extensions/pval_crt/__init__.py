from .crt import tabpfn_crt

__all__ = [
    "tabpfn_crt",
]
