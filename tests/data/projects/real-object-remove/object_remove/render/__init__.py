"""Stage E — render & blend.

Two interchangeable compositing backends:
:class:`MultiBandBlender` (fixed kernel, per level mask feather) and
:class:`PoissonBlend` / :class:`PoissonBlend2` (gradient domain). Selected
via :class:`PatchCompositor`. :func:`fused_patch_blend.solve_and_blend`
is an optional fused fast path (single scale solve + blend in one pass,
weighted by the solve's own patch coverage) alongside that two-stage flow.
"""

from .multiband_blender import MultiBandBlender
from .poisson_blender import PoissonBlend, PoissonBlend2
from .compositor import PatchCompositor, BlendBackend
from .fused_patch_blend import FusedPatchBlendCompositor, solve_and_blend, draw_blend_mask

__all__ = [
    "MultiBandBlender", "PoissonBlend", "PoissonBlend2",
    "PatchCompositor", "BlendBackend",
    "FusedPatchBlendCompositor", "solve_and_blend", "draw_blend_mask",
]
