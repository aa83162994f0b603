from .image_generator import generate_images
