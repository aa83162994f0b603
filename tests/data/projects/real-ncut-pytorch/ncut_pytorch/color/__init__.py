from .coloring import (
    convert_to_lab_color,
    mspace_color,
    rotate_rgb_cube,
    tsne_color,
    umap_color,
    umap_sphere_color,
)

__all__ = [
    "mspace_color",
    "tsne_color",
    "umap_color",
    "umap_sphere_color",
    "convert_to_lab_color",
    "rotate_rgb_cube",
]
