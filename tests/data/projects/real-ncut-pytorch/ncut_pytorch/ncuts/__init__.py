from .ncut_click import ncut_click_prompt
from .ncut_kway import axis_align, kway_ncut, quick_kway
from .ncut_nystrom import ncut_fn, nystrom_propagate

__all__ = [
    "ncut_fn",
    "nystrom_propagate",
    "kway_ncut",
    "axis_align",
    "quick_kway",
    "ncut_click_prompt",
]
