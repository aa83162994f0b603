from .encoder import ELECTRAEncoder
