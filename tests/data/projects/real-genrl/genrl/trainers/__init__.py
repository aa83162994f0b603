from genrl.trainers.bandit import BanditTrainer, DCBTrainer, MABTrainer  # noqa
from genrl.trainers.base import Trainer  # noqa
from genrl.trainers.classical import ClassicalTrainer  # noqa
from genrl.trainers.offpolicy import OffPolicyTrainer  # noqa
from genrl.trainers.onpolicy import OnPolicyTrainer  # noqa
