from rl4co.envs.graph.flp.env import FLPEnv
from rl4co.envs.graph.flp.generator import FLPGenerator
from rl4co.envs.graph.mcp.env import MCPEnv
from rl4co.envs.graph.mcp.generator import MCPGenerator
