from genrl.classical.sarsa.sarsa import SARSA  # noqa
