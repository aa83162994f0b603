from .version import __version__ as __version__
from .layers import (
    is_scriptable as is_scriptable,
    is_exportable as is_exportable,
    set_scriptable as set_scriptable,
    set_exportable as set_exportable,
)
from .models import (
    create_model as create_model,
    list_models as list_models,
    list_pretrained as list_pretrained,
    is_model as is_model,
    list_modules as list_modules,
    model_entrypoint as model_entrypoint,
    is_model_pretrained as is_model_pretrained,
    get_pretrained_cfg as get_pretrained_cfg,
    get_pretrained_cfg_value as get_pretrained_cfg_value,
)
