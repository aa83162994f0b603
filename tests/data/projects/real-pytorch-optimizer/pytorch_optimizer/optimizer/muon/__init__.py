from pytorch_optimizer.optimizer.muon.adago import AdaGO
from pytorch_optimizer.optimizer.muon.adamuon import AdaMuon
from pytorch_optimizer.optimizer.muon.base import MuonBase, get_adjusted_lr
from pytorch_optimizer.optimizer.muon.distributed_muon import DistributedMuon
from pytorch_optimizer.optimizer.muon.muon import Muon
from pytorch_optimizer.optimizer.muon.muon_clip import MuonClip
from pytorch_optimizer.optimizer.muon.normuon import NorMuon
from pytorch_optimizer.optimizer.muon.utils import prepare_muon_parameters

__all__ = [
    'AdaGO',
    'AdaMuon',
    'DistributedMuon',
    'Muon',
    'MuonBase',
    'MuonClip',
    'NorMuon',
    'get_adjusted_lr',
    'prepare_muon_parameters',
]
