from __future__ import absolute_import, print_function, annotations

from .helpers import load_image, crop_image, save_displacements, save_confidence, generate_inverse_image
