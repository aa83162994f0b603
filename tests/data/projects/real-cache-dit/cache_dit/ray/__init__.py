from .wrapper import disable_ray_module_parallelism
from .wrapper import disable_ray_pipeline_parallelism
from .wrapper import enable_ray_module_parallelism
from .wrapper import enable_ray_parallelism
from .wrapper import enable_ray_pipeline_parallelism

__all__ = [
  "disable_ray_module_parallelism",
  "disable_ray_pipeline_parallelism",
  "enable_ray_module_parallelism",
  "enable_ray_parallelism",
  "enable_ray_pipeline_parallelism",
]
