from pytorch_volumetric.chamfer import batch_chamfer_dist, PlausibleDiversity, pairwise_distance, \
    pairwise_distance_chamfer
from pytorch_volumetric.sdf import sample_mesh_points, ObjectFrameSDF, MeshSDF, CachedSDF, ComposedSDF, SDFQuery, \
    ObjectFactory, MeshObjectFactory, OutOfBoundsStrategy, SphereSDF
from pytorch_volumetric.voxel import Voxels, VoxelGrid, VoxelSet, ExpandingVoxelGrid, get_divisible_range_by_resolution, \
    get_coordinates_and_points_in_grid, voxel_down_sample
from pytorch_volumetric.model_to_sdf import RobotSDF, cache_link_sdf_factory, aabb_to_ordered_end_points
from pytorch_volumetric.visualization import draw_sdf_slice, get_transformed_meshes
from pytorch_volumetric.volume import is_inside
