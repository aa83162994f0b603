'''
@Description: 
@Author: shenlei
@Date: 2023-12-18 12:55:55
@LastEditTime: 2023-12-28 18:20:31
@LastEditors: shenlei
'''
from .c_mteb import *
