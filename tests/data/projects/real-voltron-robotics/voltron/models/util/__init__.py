from .extraction import instantiate_extractor
