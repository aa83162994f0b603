'''
@Description: 
@Author: shenlei
@Date: 2024-01-15 15:26:38
@LastEditTime: 2024-01-16 00:27:22
@LastEditors: shenlei
'''
