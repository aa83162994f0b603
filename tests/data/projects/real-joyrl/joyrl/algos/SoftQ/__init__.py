#!/usr/bin/env python
# coding=utf-8
'''
Author: JiangJi
Email: johnjim0816@gmail.com
Date: 2024-07-30 13:40:26
LastEditor: JiangJi
LastEditTime: 2024-07-30 13:40:27
Discription: 
'''
