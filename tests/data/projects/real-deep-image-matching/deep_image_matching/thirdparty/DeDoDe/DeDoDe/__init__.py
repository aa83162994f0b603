from .model_zoo import (
    dedode_detector_B,
    dedode_detector_L,
    dedode_descriptor_B,
    dedode_descriptor_G,
)

DEBUG_MODE = False
