from ..layer import Layer
from ..dense import Dense
from ..activations.gelu import GELU


class FeedForward(Layer):

    def __init__(self, d_model, d_ff=None):
        super().__init__()

        if d_ff is None:
            d_ff = 4 * d_model

        self.d_model = d_model
        self.d_ff = d_ff

        self.fc1 = Dense(d_model, d_ff)
        self.activation = GELU()
        self.fc2 = Dense(d_ff, d_model)

    def forward(self, x):
        x = self.fc1(x)
        x = self.activation(x)
        x = self.fc2(x)

        return x

    def parameters(self):
        return self.fc1.parameters() + self.fc2.parameters()
    def get_config(self):

        return {"d_model":self.d_model,"d_ff":self.d_ff}
    