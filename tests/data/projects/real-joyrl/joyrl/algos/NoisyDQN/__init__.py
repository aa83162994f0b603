#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2023-05-30 23:57:29
LastEditor: JiangJi
LastEditTime: 2023-05-30 23:57:30
Discription: 
'''
