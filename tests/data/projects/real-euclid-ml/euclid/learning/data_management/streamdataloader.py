from euclid.settings import xp

from ...core.tensor import Tensor


class StreamDataLoader:

    def __init__(
        self,
        generate_fn,
        batch_size=32,
        steps_per_epoch=1000,
    ):

        self.generate_fn = generate_fn
        self.batch_size = batch_size
        self.steps_per_epoch = steps_per_epoch

    def batch(self):

        x, y = self.generate_fn(
            self.batch_size
        )

        if not isinstance(x, Tensor):
            x = Tensor(x)

        if not isinstance(y, Tensor):
            y = Tensor(y)

        return x, y

    def __len__(self):

        return self.steps_per_epoch