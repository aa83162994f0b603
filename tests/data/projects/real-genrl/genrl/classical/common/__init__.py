from genrl.classical.common.models import TabularModel, get_model_from_name  # noqa
from genrl.classical.common.trainer import Trainer  # noqa
