from .univnet import UnivNet
