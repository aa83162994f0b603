from .feature_embedding import *

