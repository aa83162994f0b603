'''
@Description: 
@Author: shenlei
@Date: 2023-11-29 12:34:35
@LastEditTime: 2024-01-16 00:50:14
@LastEditors: shenlei
'''
from .embedding import EmbeddingModel
from .reranker import RerankerModel

__all__ = [
    'EmbeddingModel', 'RerankerModel'
]