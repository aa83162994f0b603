from .transforms import gLocal
