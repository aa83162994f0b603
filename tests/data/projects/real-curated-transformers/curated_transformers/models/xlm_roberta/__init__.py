from .encoder import XLMREncoder
