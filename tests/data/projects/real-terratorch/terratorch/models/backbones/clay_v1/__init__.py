from terratorch.models.backbones.clay_v1.embedder import *
from terratorch.models.backbones.clay_v1.modules import *
from terratorch.models.backbones.clay_v1.utils import *
