#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2023-01-01 16:20:49
LastEditor: JiangJi
LastEditTime: 2024-12-19 13:44:27
Discription: 
'''
from joyrl import algos, framework, envs
from joyrl.run import run

__version__ = "0.6.8"

__all__ = [
    "algos",
    "config",
    "envs",
    "framework",
    "run"
]
