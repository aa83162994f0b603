"""Hosts the downloaded pretrained model weights.

Please feel free to delete weights if you do not need them.
They will be downloaded again automatically if needed.
"""
