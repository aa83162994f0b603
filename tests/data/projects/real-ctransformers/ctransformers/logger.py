import logging

logger = logging.getLogger("ctransformers")
