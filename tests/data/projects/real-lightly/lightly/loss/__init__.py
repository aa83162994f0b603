"""The lightly.loss package provides loss functions for self-supervised learning."""

# Copyright (c) 2020. Lightly AG and its affiliates.
# All Rights Reserved
from lightly.loss.barlow_twins_loss import BarlowTwinsLoss
from lightly.loss.capi_loss import CAPILoss
from lightly.loss.dcl_loss import DCLLoss, DCLWLoss
from lightly.loss.dense_relational_utils import roi_resample_to_grid
from lightly.loss.detcon_loss import DetConBLoss, DetConSLoss
from lightly.loss.dino_loss import DINOLoss
from lightly.loss.directclr_loss import DirectCLRLoss
from lightly.loss.emp_ssl_loss import EMPSSLLoss
from lightly.loss.frossl_loss import FroSSLLoss
from lightly.loss.ibot_loss import IBOTPatchLoss, IBOTPlusPlusPatchLoss
from lightly.loss.koleo_loss import KoLeoLoss
from lightly.loss.lejepa_loss import LeJEPALoss, SIGReg
from lightly.loss.lewm_loss import LeWMLoss
from lightly.loss.macl_loss import MACLLoss
from lightly.loss.mmcr_loss import MMCRLoss
from lightly.loss.msn_loss import MSNLoss
from lightly.loss.negative_cosine_similarity import NegativeCosineSimilarity
from lightly.loss.ntx_ent_loss import NTXentLoss
from lightly.loss.patch_kernel_alignment_loss import PatchKernelAlignmentLoss
from lightly.loss.pmsn_loss import PMSNCustomLoss, PMSNLoss
from lightly.loss.swav_loss import SwaVLoss
from lightly.loss.tico_loss import TiCoLoss
from lightly.loss.vicreg_loss import VICRegLoss
from lightly.loss.vicregl_loss import VICRegLLoss
from lightly.loss.visreg_loss import VISRegLoss, VISRegLossComponents
from lightly.loss.wmse_loss import Whitening2d, WMSELoss
