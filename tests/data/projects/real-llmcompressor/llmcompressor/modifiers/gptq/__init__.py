# ruff: noqa

from .base import *
from .gptq_quantize import *
