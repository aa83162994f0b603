# ruff: noqa

from .module import *
