from .remove import get_remove_additive_transform, remove_additive  # noqa: F401
from .zbl import ZBL  # noqa: F401
