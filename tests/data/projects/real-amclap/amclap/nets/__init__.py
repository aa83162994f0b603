from .transformer import Transformer

NETS = {
    "transformer": Transformer,
}
