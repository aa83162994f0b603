from .dust3r import Dust3rInitializer, Dust3rAlign2Initializer, load_images_to_destination, path_prefix_image_to_mask
from .mast3r import Mast3rInitializer
