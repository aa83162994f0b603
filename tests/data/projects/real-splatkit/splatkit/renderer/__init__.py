from .base import SplatRenderer
from ._3dgs import Splat3DGSRenderer, Splat3dgsRenderPayload
from ._2dgs import Splat2DGSRenderer, Splat2dgsRenderPayload

__all__ = [
    "SplatRenderer", 
    "Splat3DGSRenderer", 
    "Splat3dgsRenderPayload",
    "Splat2DGSRenderer",
    "Splat2dgsRenderPayload",
]