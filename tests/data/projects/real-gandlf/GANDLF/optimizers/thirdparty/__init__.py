from .ademamix import ademamix_wrapper

from .lion import lion_wrapper

from .adopt import adopt_wrapper
