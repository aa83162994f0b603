from . import decoders, encoders
from .decoders import *  # noqa
from .encoders import *  # noqa

encoder_classes = encoders.classes
decoder_classes = decoders.classes

classes = encoder_classes + decoder_classes

__all__ = [
    'encoders',
    'decoders',
]
