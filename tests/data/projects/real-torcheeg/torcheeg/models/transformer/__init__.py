from .arjun_vit import ArjunViT
from .simple_vit import SimpleViT
from .vanilla_transformer import VanillaTransformer
from .vit import ViT
from .conformer import Conformer
from .atcnet import ATCNet
from .tcnet import TCNet
from .labram import LaBraM