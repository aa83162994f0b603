SHAPE_FLAG = "shape"
PADDING_FLAG = "padding"
DEFAULT_PADDING = -1
SEQUENCE_LENGTH_FLAG = "sequence_length"
PADDING_FLAG = "padding"
