# Copyright © 2023-2024 Apple Inc.

from .gaussian_mechanism import GaussianMechanism
from .joint_privacy_accountant import JointPrivacyAccountant
from .laplace_mechanism import LaplaceMechanism
from .privacy_accountant import PLDPrivacyAccountant, PrivacyAccountant, PRVPrivacyAccountant, RDPPrivacyAccountant
from .privacy_mechanism import (
    CentrallyApplicablePrivacyMechanism,
    CentrallyAppliedPrivacyMechanism,
    CentralPrivacyMechanism,
    LocalPrivacyMechanism,
    NoPrivacy,
    NormClipping,
    NormClippingOnly,
    PrivacyMechanism,
    PrivacyMetricName,
    SplitPrivacyMechanism,
)
