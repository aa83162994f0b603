from piq.utils.common import _validate_input, _reduce, _parse_version

__all__ = [
    "_validate_input",
    "_reduce",
    '_parse_version'
]
