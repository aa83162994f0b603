from .config import load_config
from .image import read_mask, read_rgb, save_image
