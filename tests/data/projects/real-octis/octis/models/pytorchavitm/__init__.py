"""Init package"""

from octis.models.pytorchavitm.avitm.avitm_model import AVITM_model
