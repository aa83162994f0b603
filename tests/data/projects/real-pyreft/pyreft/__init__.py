# model helpers
from .utils import TaskType, get_reft_model
from .config import ReftConfig

# models
from .reft_model import (
    ReftModel
)

# trainers
from .reft_trainer import (
    ReftTrainer,
    ReftTrainerForCausalLM,
    ReftTrainerForCausalLMDistributed,
    ReftTrainerForSequenceClassification
)

# interventions
from .interventions import (
    NoreftIntervention,
    LoreftIntervention,
    ConsreftIntervention,
    LobireftIntervention,
    DireftIntervention,
    NodireftIntervention
)

# dataloader helpers
from .dataset import (
    ReftDataCollator,
    ReftDataset,
    ReftRawDataset,
    ReftSupervisedDataset,
    ReftGenerationDataset,
    ReftPreferenceDataset,
    ReftRewardDataset,
    ReftRewardCollator,
    make_last_position_supervised_data_module,
    make_multiple_position_supervised_data_module,
    get_intervention_locations,
    parse_positions
)
