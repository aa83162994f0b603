# -*- coding: utf-8 -*-
from .seed import set_random_seed