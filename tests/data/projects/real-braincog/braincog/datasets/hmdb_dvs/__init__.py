# encoding: utf-8
# Author    : Floyed<Floyed_Shen@outlook.com>
# Datetime  : 2023/1/30 20:54
# User      : yu
# Product   : PyCharm
# Project   : BrainCog
# File      : __init__.py
# explain   :

from .hmdb_dvs import HMDBDVS

__all__ = [
    'HMDBDVS'
]