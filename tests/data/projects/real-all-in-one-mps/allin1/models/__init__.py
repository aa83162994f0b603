from .allinone import AllInOne as AllInOne
from .loaders import load_pretrained_model as load_pretrained_model
