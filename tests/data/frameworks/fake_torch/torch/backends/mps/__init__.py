"""torch.backends.mps: never available on Linux."""


def is_available():
    return False
