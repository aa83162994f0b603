import os

import torch

from .backends import *
