'''
@Description: 
@Author: shenlei
@Date: 2023-12-18 12:34:25
@LastEditTime: 2023-12-27 13:00:25
@LastEditors: shenlei
'''
from .Reranking import *
from .Retrieval import *
from .yd_dres_model import YDDRESModel
from mteb import MTEB