from recbole.data.dataloader.abstract_dataloader import *
from recbole.data.dataloader.general_dataloader import *
from recbole.data.dataloader.knowledge_dataloader import *
from recbole.data.dataloader.user_dataloader import *
