from advsecurenet.attacks.attacker.attacker import Attacker, AttackerConfig
from advsecurenet.attacks.attacker.ddp_attacker import DDPAttacker

__all__ = ["Attacker", "AttackerConfig", "DDPAttacker"]
