# ruff: noqa

from .base import *
from .utils import *
