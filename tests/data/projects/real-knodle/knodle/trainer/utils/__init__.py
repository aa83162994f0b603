from knodle.trainer.utils.utils import log_section
