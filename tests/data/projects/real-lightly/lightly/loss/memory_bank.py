# For backwards compatibility as memory_bank module was previously in loss module.
from lightly.models.modules.memory_bank import MemoryBankModule
