from skrl.multi_agents.torch.mappo.mappo import MAPPO
from skrl.multi_agents.torch.mappo.mappo_cfg import MAPPO_CFG
