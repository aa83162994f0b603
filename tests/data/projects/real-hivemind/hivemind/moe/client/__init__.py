from hivemind.moe.client.expert import RemoteExpert
from hivemind.moe.client.moe import RemoteMixtureOfExperts
from hivemind.moe.client.switch_moe import RemoteSwitchMixtureOfExperts
