

from .basic_client import SGDClientTrainer, SGDSerialClientTrainer
from .basic_server import SyncServerHandler, AsyncServerHandler

from .ditto import DittoSerialClientTrainer, DittoServerHandler
from .fedavg import FedAvgSerialClientTrainer, FedAvgServerHandler
from .feddyn import FedDynSerialClientTrainer, FedDynServerHandler
from .fednova import FedNovaSerialClientTrainer, FedNovaServerHandler
from .fedprox import FedProxSerialClientTrainer, FedProxClientTrainer, FedProxServerHandler
from .ifca import IFCASerialClientTrainer, IFCAServerHander
from .powerofchoice import PowerofchoiceSerialClientTrainer, PowerofchoicePipeline, Powerofchoice
from .qfedavg import qFedAvgClientTrainer, qFedAvgServerHandler
from .scaffold import ScaffoldSerialClientTrainer, ScaffoldServerHandler