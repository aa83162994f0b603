from .transformer import LocalFeatureTransformer
from .fine_preprocess import FinePreprocess
