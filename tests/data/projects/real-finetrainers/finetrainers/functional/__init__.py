from .diffusion import flow_match_target, flow_match_xt
from .image import (
    bicubic_resize_image,
    center_crop_image,
    find_nearest_resolution_image,
    resize_crop_image,
    resize_to_nearest_bucket_image,
)
from .normalization import normalize
from .text import convert_byte_str_to_str, dropout_caption, dropout_embeddings_to_zero, remove_prefix
from .video import (
    bicubic_resize_video,
    center_crop_video,
    find_nearest_video_resolution,
    resize_crop_video,
    resize_to_nearest_bucket_video,
)
