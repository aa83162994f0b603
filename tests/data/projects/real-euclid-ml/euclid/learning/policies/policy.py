class Policy:

    def __init__(self, network):
        self.network = network

    def parameters(self):
        return self.network.parameters()

    def forward(self, state):
        return self.network.forward(state)

    def sample_action(self, state):
        raise NotImplementedError

    def log_probability(self, state, action):
        raise NotImplementedError