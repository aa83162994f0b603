# GENERATED VERSION FILE
# TIME: Tue Aug 30 04:33:52 2022
__version__ = '1.4.2'
__gitsha__ = '651835a'
version_info = (1, 4, 2)
