from .cutout import Cutout
from .flip import RandomHorizontalFlip
from .ops import ToTensor, ToDevice, ToTorchImage, Convert, View
from .common import Squeeze
from .random_resized_crop import RandomResizedCrop
from .poisoning import Poison
from .replace_label import ReplaceLabel
from .normalize import NormalizeImage
from .translate import RandomTranslate
from .mixup import ImageMixup, LabelMixup, MixupToOneHot
from .module import ModuleWrapper
from .color_jitter import RandomBrightness, RandomContrast, RandomSaturation

__all__ = ['ToTensor', 'ToDevice',
           'ToTorchImage', 'NormalizeImage',
           'Convert',  'Squeeze', 'View',
           'RandomResizedCrop', 'RandomHorizontalFlip', 'RandomTranslate',
           'Cutout', 'ImageMixup', 'LabelMixup', 'MixupToOneHot',
           'Poison', 'ReplaceLabel',
           'ModuleWrapper',
           'RandomBrightness', 'RandomContrast', 'RandomSaturation']
