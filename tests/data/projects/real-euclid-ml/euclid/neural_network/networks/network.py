class Network:
    def forward(self, x):
        raise NotImplementedError

    def __call__(self, x):
        return self.forward(x)

    def parameters(self):
        raise NotImplementedError

    def train(self):
        self.training = True

    def eval(self):
        self.training = False