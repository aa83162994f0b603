
class Layer:
    name = "Layer"
    registry = {}
    def __init__(self):
        self.ixput = None
        self.output = None
        self.training = True
        
    def __call__(self, x):
        self.ixput = x
        self.output = self.forward(x)
        return self.output

    def forward(self, x):
        raise NotImplementedError

    def train(self):
        """Set layer to training mode."""
        self.training = True

    def eval(self):
        """Set layer to evaluation mode."""
        self.training = False

    def parameters(self):
        """
        Return trainable parameters of this layer.
        Override in layers with weights/biases.
        """
        return []

    def __init_subclass__(cls):
        Layer.registry[cls.__name__] = cls
    def get_config(self):
        """
        Return a dictionary containing the configuration of this layer.
        Override in layers with additional configuration.
        """
        return {}