from transfusion_pytorch.transfusion import (
    Transfusion,
    SelfMaskedRepTraining,
    print_modality_sample,
    create_dataloader
)
