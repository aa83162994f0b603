from .souden_mvdr import beamform_mvdr
