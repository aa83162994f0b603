"""CAREamics PyTorch Lightning modules."""

from .care_module import CAREModule
from .get_module import (
    CAREamicsModule,
    create_module,
    get_module_cls,
)
from .n2v_module import N2VModule

__all__ = [
    "CAREModule",
    "CAREamicsModule",
    "N2VModule",
    "create_module",
    "get_module_cls",
]
