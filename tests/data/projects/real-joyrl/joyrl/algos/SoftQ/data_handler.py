#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2024-07-30 13:40:11
LastEditor: JiangJi
LastEditTime: 2024-07-30 13:40:12
Discription: 
'''
from joyrl.algos.base.data_handler import BaseDataHandler

class DataHandler(BaseDataHandler):
    def __init__(self, cfg):
        super().__init__(cfg)
    