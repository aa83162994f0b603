import loguru


def _get_logger():
    return loguru.logger


logger = _get_logger()
