from icon_registration.losses import (
    LNCC,
    LNCCOnlyInterpolated,
    SquaredLNCC,
    BlurredSSD,
    GradientICON,
    InverseConsistentNet,
    gaussian_blur,
    ssd_only_interpolated,
    ssd,
    SSDOnlyInterpolated,
    SSD,
    NCC,
    MINDSSC,
)
from icon_registration.network_wrappers import (
    DownsampleRegistration,
    FunctionFromMatrix,
    FunctionFromVectorField,
    RegistrationModule,
    TwoStepRegistration,
)
from icon_registration.train import train_batchfunction, train_datasets
