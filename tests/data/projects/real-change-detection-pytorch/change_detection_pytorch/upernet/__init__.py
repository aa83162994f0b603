from .model import UPerNet
