#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2023-12-22 14:07:32
LastEditor: JiangJi
LastEditTime: 2023-12-22 14:07:32
Discription: 
'''
