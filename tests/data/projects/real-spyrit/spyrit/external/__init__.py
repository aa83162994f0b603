"""This module uses a modified version of the Unet presented in https://github.com/cszn/DPIR/blob/master/models/network_unet.py"""

# from . import drunet
