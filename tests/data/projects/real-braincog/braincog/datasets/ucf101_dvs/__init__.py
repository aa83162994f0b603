# encoding: utf-8
# Author    : Floyed<Floyed_Shen@outlook.com>
# Datetime  : 2023/1/30 21:04
# User      : yu
# Product   : PyCharm
# Project   : BrainCog
# File      : __init__.py.py
# explain   :

from .ucf101_dvs import UCF101DVS

__all__ = [
    'UCF101DVS'
]