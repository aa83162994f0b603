from .utils import (
    downsample_field,
    save_image,
    save_fields_vtk,
    save_BCs_vtk,
    rotate_geometry,
    voxelize_stl,
    axangle2mat,
    save_usd_vorticity,
    save_usd_q_criterion,
    update_usd_lagrangian_parts,
    plot_object_placement,
    colorize_scalars,
)
