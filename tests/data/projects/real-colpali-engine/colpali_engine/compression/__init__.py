from .token_pooling import (
    BaseTokenPooler,
    HierarchicalTokenPooler,
    LambdaTokenPooler,
    TokenPoolingOutput,
)
