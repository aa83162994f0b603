from .env_var import (
    parse_boolean_from_env,
    parse_integer_from_env,
    set_boolean_env_var,
    set_integer_env_var,
)
from .log_utils import logger
