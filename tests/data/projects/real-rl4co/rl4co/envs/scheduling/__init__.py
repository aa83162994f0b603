from .ffsp.env import FFSPEnv
from .fjsp.env import FJSPEnv
from .jssp.env import JSSPEnv
from .smtwtp.env import SMTWTPEnv
