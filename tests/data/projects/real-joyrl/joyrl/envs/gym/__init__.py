#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2023-05-28 18:49:43
LastEditor: JiangJi
LastEditTime: 2023-05-28 18:49:46
Discription: 
'''
from joyrl.envs.gym.wrappers import *