from .base import BaseParallelBackend


class DeepspeedParallelBackend(BaseParallelBackend):
    def __init__(self):
        # TODO(aryan)
        raise NotImplementedError("DeepspeedParallelBackend is not implemented yet.")
