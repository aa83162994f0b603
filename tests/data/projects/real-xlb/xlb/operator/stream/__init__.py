from xlb.operator.stream.stream import Stream
