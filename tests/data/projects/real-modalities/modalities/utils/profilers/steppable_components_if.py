class SteppableComponentIF:
    def step(self) -> None:
        raise NotImplementedError
