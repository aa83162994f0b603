"""
Fast Fourier Transform
^^^^^^^^^^^^^^^^^^^^^^

.. autoclass :: FFT
    :members:

FFT frequency shift
^^^^^^^^^^^^^^^^^^^

.. autoclass :: FFTShift
    :members:
"""

from reikna.fft.fft import FFT
from reikna.fft.fftshift import FFTShift
