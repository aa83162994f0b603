from skrl.agents.torch.sac.sac import SAC
from skrl.agents.torch.sac.sac_cfg import SAC_CFG
from skrl.agents.torch.sac.sac_rnn import SAC_RNN
