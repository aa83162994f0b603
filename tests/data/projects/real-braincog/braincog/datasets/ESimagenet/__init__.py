# -*- coding: utf-8 -*-            
# Time : 2022/11/1 11:05
# Author : Regulus
# FileName: __init__.py.py
# Explain: 
# Software: PyCharm

"""
from: https://github.com/lyh983012/ES-imagenet-master
"""

__all__ = ['ES_imagenet', 'reconstructed_ES_imagenet']
from . import (
    ES_imagenet,
    reconstructed_ES_imagenet
)