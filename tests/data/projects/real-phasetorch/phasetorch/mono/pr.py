from phasetorch.mono._sinlpr import paganin
from phasetorch.mono._nonlpr import nlpr, nlprcon, tropt_nlprcon
from phasetorch.mono._mullpr import ctf,tie,mixed,gspr
