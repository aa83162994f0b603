from genrl.agents.deep.base.base import BaseAgent  # noqa
from genrl.agents.deep.base.offpolicy import OffPolicyAgent, OffPolicyAgentAC  # noqa
from genrl.agents.deep.base.onpolicy import OnPolicyAgent  # noqa
