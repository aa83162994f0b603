"""
Constant data enhancement parameters of Imagenet dataset
"""

DEFAULT_CROP_PCT = 0.875
IMAGENET_DEFAULT_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_DEFAULT_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
