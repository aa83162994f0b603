from importlib.metadata import version

__version__ = version("scprint")


from .model.model import scPrint

# from .data_collator import DataCollator
# from .data_sampler import SubsetsBatchSampler
# from .trainer import (
#    prepare_data,
#    prepare_dataloader,
#    train,
#    define_wandb_metrcis,
#    evaluate,
#    eval_testdata,
#    test,
# )#
