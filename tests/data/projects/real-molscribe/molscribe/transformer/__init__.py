from .decoder import TransformerDecoder
from .embedding import Embeddings
from .swin_transformer import swin_base, swin_large
