from .quantize import * 

# __all__ = ['prepare', 'convert']