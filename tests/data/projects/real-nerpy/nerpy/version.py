# -*- coding: utf-8 -*-
"""
@author:XuMing(xuming624@qq.com)
@description: version
"""

__version__ = '0.1.2'
