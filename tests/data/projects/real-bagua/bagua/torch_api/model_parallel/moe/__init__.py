from .layer import MoE  # noqa: F401
from .utils import is_moe_param  # noqa: F401
