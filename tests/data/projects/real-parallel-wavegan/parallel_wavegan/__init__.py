# -*- coding: utf-8 -*-

__version__ = "0.6.1"
