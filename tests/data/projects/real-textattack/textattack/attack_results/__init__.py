"""

TextAttack attack_results Package
==================================

"""

from .attack_result import AttackResult
from .maximized_attack_result import MaximizedAttackResult
from .failed_attack_result import FailedAttackResult
from .skipped_attack_result import SkippedAttackResult
from .successful_attack_result import SuccessfulAttackResult
