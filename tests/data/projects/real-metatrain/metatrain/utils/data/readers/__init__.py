from .readers import (  # noqa: F401
    read_extra_data,
    read_systems,
    read_targets,
)
