"""
Util files for TorchServe
"""
