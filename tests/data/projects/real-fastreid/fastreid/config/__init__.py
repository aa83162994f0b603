# encoding: utf-8
"""
@author:  l1aoxingyu
@contact: sherlockliao01@gmail.com
"""

from .config import CfgNode, get_cfg, global_cfg, set_global_cfg, configurable

__all__ = [
    'CfgNode',
    'get_cfg',
    'global_cfg',
    'set_global_cfg',
    'configurable'
]
