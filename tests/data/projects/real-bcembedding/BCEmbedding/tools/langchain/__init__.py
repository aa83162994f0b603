'''
@Description: 
@Author: shenlei
@Date: 2024-01-15 23:11:48
@LastEditTime: 2024-01-16 00:26:57
@LastEditors: shenlei
'''
from .bce_rerank import BCERerank
