from .preprocess import Preprocessor
from .crop import crop_feats_length
