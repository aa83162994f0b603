# GENERATED VERSION FILE
# TIME: Sat Apr 15 06:51:52 2023
__version__ = '0.3.0'
__gitsha__ = '260620a'
version_info = (0, 3, 0)
