from .sparse import ColmapSparseInitializer, relative_image_names, save_image, save_image_mask, check_image_paths
from .dense import ColmapDenseInitializer
