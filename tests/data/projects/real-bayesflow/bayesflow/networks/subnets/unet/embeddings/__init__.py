from .dense_fourier import DenseFourier
