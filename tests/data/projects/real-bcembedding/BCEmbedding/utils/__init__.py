'''
@Description: 
@Author: shenlei
@Date: 2023-11-28 17:32:38
@LastEditTime: 2023-12-18 16:54:43
@LastEditors: shenlei
'''
from .logger import logger_wrapper
from .query_instructions import *