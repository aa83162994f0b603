from genrl.classical.qlearning import QLearning  # noqa
from genrl.classical.sarsa import SARSA  # noqa
