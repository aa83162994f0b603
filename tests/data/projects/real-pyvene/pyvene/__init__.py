"""Stanford NLP Python Library for Understanding and Improving PyTorch Models via Interventions"""

# Generic APIs
from .data_generators.causal_model import CausalModel
from .models.intervenable_base import IntervenableModel, IntervenableNdifModel, build_intervenable_model
from .models.configuration_intervenable_model import IntervenableConfig
from .models.configuration_intervenable_model import RepresentationConfig


# Interventions
from .models.interventions import Intervention
from .models.interventions import TrainableIntervention
from .models.interventions import BasisAgnosticIntervention
from .models.interventions import SharedWeightsTrainableIntervention
from .models.interventions import SkipIntervention
from .models.interventions import VanillaIntervention
from .models.interventions import AdditionIntervention
from .models.interventions import SubtractionIntervention
from .models.interventions import RotatedSpaceIntervention
from .models.interventions import BoundlessRotatedSpaceIntervention
from .models.interventions import SigmoidMaskRotatedSpaceIntervention
from .models.interventions import LowRankRotatedSpaceIntervention
from .models.interventions import PCARotatedSpaceIntervention
from .models.interventions import CollectIntervention
from .models.interventions import ConstantSourceIntervention
from .models.interventions import ZeroIntervention
from .models.interventions import LocalistRepresentationIntervention
from .models.interventions import DistributedRepresentationIntervention
from .models.interventions import SourcelessIntervention
from .models.interventions import NoiseIntervention
from .models.interventions import SigmoidMaskIntervention
from .models.interventions import AutoencoderIntervention
from .models.interventions import JumpReLUAutoencoderIntervention
from .models.interventions import InterventionOutput


# Utils
from .models.basic_utils import *
from .models.intervention_utils import _do_intervention_by_swap
from .models.intervenable_modelcard import type_to_module_mapping, type_to_dimension_mapping
from .models.gpt2.modelings_intervenable_gpt2 import create_gpt2
from .models.gpt2.modelings_intervenable_gpt2 import create_gpt2_lm
from .models.blip.modelings_intervenable_blip import create_blip
from .models.blip.modelings_intervenable_blip_itm import create_blip_itm
from .models.gpt_neo.modelings_intervenable_gpt_neo import create_gpt_neo
from .models.gpt_neox.modelings_intervenable_gpt_neox import create_gpt_neox
from .models.gru.modelings_intervenable_gru import create_gru
from .models.gru.modelings_intervenable_gru import create_gru_lm
from .models.gru.modelings_intervenable_gru import create_gru_classifier
from .models.llava.modelings_intervenable_llava import create_llava
from .models.gru.modelings_gru import GRUConfig
from .models.llama.modelings_intervenable_llama import create_llama
from .models.mlp.modelings_intervenable_mlp import create_mlp_classifier
from .models.backpack_gpt2.modelings_intervenable_backpack_gpt2 import create_backpack_gpt2
from .models.olmo.modelings_intervenable_olmo import create_olmo
