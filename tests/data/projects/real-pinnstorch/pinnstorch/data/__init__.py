from .dataloader.dataloader import PINNDataLoader
from .domains.point_cloud import PointCloudData
from .domains.spatial import Interval, Rectangle, RectangularPrism
from .domains.time import TimeDomain
from .mesh.mesh import Mesh, PointCloud
from .pinn_datamodule import PINNDataModule
from .sampler.boundary_condition import (
    DirichletBoundaryCondition,
    PeriodicBoundaryCondition,
)
from .sampler.initial_condition import InitialCondition
from .sampler.mesh_sampler import DiscreteMeshSampler, MeshSampler
