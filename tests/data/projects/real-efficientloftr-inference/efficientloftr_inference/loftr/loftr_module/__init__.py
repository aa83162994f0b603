# Unmodified upstream file.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
from .transformer import LocalFeatureTransformer
from .fine_preprocess import FinePreprocess
