from .model import PolyNet
