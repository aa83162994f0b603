from xlb.helper.nse_solver import create_nse_fields
from xlb.helper.initializers import initialize_eq
from xlb.helper.check_boundary_overlaps import check_bc_overlaps
from xlb.helper.ibm_helper import (
    reconstruct_mesh_from_vertices_and_faces,
    transform_mesh,
    prepare_immersed_boundary,
    calculate_voronoi_areas,
)
