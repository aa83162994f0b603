from .transformer import CuratedTransformer
