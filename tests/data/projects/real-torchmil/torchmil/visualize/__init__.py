from .vis_wsi import (
    patches_to_canvas as patches_to_canvas,
    draw_patches_contour as draw_patches_contour,
    draw_heatmap_wsi as draw_heatmap_wsi,
)
from .vis_ctscan import (
    slices_to_canvas as slices_to_canvas,
    draw_slices_contour as draw_slices_contour,
    draw_heatmap_ctscan as draw_heatmap_ctscan,
)
