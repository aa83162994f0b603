# ruff: noqa: F401
from .packed import packed_vgg
from .std import vgg
