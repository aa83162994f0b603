from phasetorch.mono._simtor import cmplxtrans
from phasetorch.mono._simtor import simdata, simdata_CTF, simdata_TIE
