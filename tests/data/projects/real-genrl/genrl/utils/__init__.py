from genrl.utils.data_bandits import (  # noqa
    AdultDataBandit,
    CensusDataBandit,
    CovertypeDataBandit,
    DataBasedBandit,
    MagicDataBandit,
    MushroomDataBandit,
    StatlogDataBandit,
)
from genrl.utils.logger import CSVLogger  # noqa
from genrl.utils.logger import HumanOutputFormat  # noqa
from genrl.utils.logger import Logger  # noqa
from genrl.utils.logger import TensorboardLogger  # noqa
from genrl.utils.utils import (  # noqa
    cnn,
    get_env_properties,
    get_model,
    mlp,
    noisy_mlp,
    safe_mean,
    set_seeds,
)
