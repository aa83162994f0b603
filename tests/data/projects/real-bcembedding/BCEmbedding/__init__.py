'''
@Description: 
@Author: shenlei
@Date: 2023-11-28 17:16:10
@LastEditTime: 2023-12-18 15:08:31
@LastEditors: shenlei
'''
from .models import *