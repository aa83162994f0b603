# encoding: utf-8
# Author    : Floyed<Floyed_Shen@outlook.com>
# Datetime  : 2023/1/30 21:26
# User      : yu
# Product   : PyCharm
# Project   : BrainCog
# File      : __init__.py.py
# explain   :

from .ncaltech101 import NCALTECH101

__all__ = [
    'NCALTECH101'
]