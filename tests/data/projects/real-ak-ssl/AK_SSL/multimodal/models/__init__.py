from AK_SSL.multimodal.models.albef import ALBEF
from AK_SSL.multimodal.models.clip import CLIP
from AK_SSL.multimodal.models.simvlm import SimVLM
from AK_SSL.multimodal.models.slip import SLIP
from AK_SSL.multimodal.models.uniter import UNITER
from AK_SSL.multimodal.models.vse import VSE

__all__ = ["CLIP", "ALBEF", "SLIP", "SimVLM", "UNITER", "VSE"]
