"""OptiLLM Proxy Plugin - Load balancing and failover for LLM providers"""

from optillm.plugins.proxy.config import ProxyConfig
from optillm.plugins.proxy.client import ProxyClient
from optillm.plugins.proxy.routing import RouterFactory
from optillm.plugins.proxy.health import HealthChecker

__all__ = ['ProxyConfig', 'ProxyClient', 'RouterFactory', 'HealthChecker']