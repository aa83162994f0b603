'''
@Description: 
@Author: shenlei
@Date: 2024-01-15 23:12:14
@LastEditTime: 2024-01-16 00:27:06
@LastEditors: shenlei
'''
from .bce_rerank import BCERerank
