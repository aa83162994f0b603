# ruff: noqa: F401
from .imagenet_a import ImageNetA
from .imagenet_c import ImageNetC
from .imagenet_o import ImageNetO
from .imagenet_r import ImageNetR
from .tiny_imagenet import TinyImageNet
from .tiny_imagenet_c import TinyImageNetC
