from pytorch_widedeep.load_from_folder.text import TextFromFolder
from pytorch_widedeep.load_from_folder.image import ImageFromFolder
from pytorch_widedeep.load_from_folder.tabular import TabFromFolder, WideFromFolder
from pytorch_widedeep.load_from_folder.wd_dataset_from_folder import (
    WideDeepDatasetFromFolder,
)
