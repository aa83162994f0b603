from dlclive.modelzoo.utils import (
    _MODELZOO_PATH,
    list_available_models,
    list_available_projects,
    list_available_combinations,
    load_super_animal_config,
    download_super_animal_snapshot,
)
from dlclive.modelzoo.pytorch_model_zoo_export import export_modelzoo_model