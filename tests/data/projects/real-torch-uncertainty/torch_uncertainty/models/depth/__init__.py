# ruff: noqa: F401
from .bts import bts_resnet
