from hivemind.moe.server.dht_handler import declare_experts, get_experts
from hivemind.moe.server.layers import register_expert_class
from hivemind.moe.server.module_backend import ModuleBackend
from hivemind.moe.server.server import Server, background_server
