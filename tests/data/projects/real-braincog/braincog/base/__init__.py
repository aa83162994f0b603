__all__ = ['node', 'connection', 'learningrule', 'brainarea', 'encoder', 'utils', 'conversion']

from . import (
    node,
    strategy,
    connection,
    conversion,
    learningrule,
    brainarea,
    utils,
    encoder
)
