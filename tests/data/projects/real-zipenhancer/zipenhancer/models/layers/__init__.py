# ------ coding : utf-8 ------
# @FileName     : __init__.py.py
# @Author       : lxc
# @Time         : 2025/3/4 11:39
