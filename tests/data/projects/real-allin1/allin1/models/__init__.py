from .allinone import AllInOne
from .loaders import load_pretrained_model
