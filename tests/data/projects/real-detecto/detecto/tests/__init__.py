from .helpers import get_image
