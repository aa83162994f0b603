"""Gaze direction estimators.

Modules
-------
``l2cs`` — L2CS-Net (ResNet50 / MobileNet) gaze regressor distilled from
    Gaze360 + MPIIFaceGaze. Original implementation:
    https://github.com/Ahmednull/L2CS-Net (MIT).
"""
