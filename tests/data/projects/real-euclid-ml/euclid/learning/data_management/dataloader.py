from euclid.settings import xp

from ...core.tensor import Tensor


class DataLoader:

    def __init__(
        self,
        x,
        y,
        batch_size=32,
        shuffle=True,
    ):

        self.x = (
            x if isinstance(x, Tensor)
            else Tensor(x)
        )

        self.y = (
            y if isinstance(y, Tensor)
            else Tensor(y)
        )

        self.batch_size = batch_size
        self.shuffle = shuffle

        self.indices = None
        self.position = 0

    def batch(self):

        if self.indices is None or self.position >= len(self.indices):

            self.indices = xp.arange(
                len(self.x.data)
            )

            if self.shuffle:
                xp.random.shuffle(
                    self.indices
                )

            self.position = 0

        batch_indices = self.indices[
            self.position:
            self.position + self.batch_size
        ]

        self.position += self.batch_size

        return (
            Tensor(self.x.data[batch_indices]),
            Tensor(self.y.data[batch_indices]),
        )

    def __iter__(self):

        self.indices = xp.arange(
            len(self.x.data)
        )

        if self.shuffle:
            xp.random.shuffle(
                self.indices
            )

        self.position = 0

        while self.position < len(self.indices):

            yield self.batch()

    def __len__(self):

        return int(
            xp.ceil(
                len(self.x.data)
                / self.batch_size
            )
        )