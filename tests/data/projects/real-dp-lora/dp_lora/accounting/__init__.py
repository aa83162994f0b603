from dp_lora.accounting.accountant import PrivacyAccountant, get_noise_multiplier

__all__ = ["PrivacyAccountant", "get_noise_multiplier"]
