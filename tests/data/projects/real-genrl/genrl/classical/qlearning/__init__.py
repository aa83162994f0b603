from genrl.classical.qlearning.qlearning import QLearning  # noqa
