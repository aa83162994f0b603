from deepinv.models.third_party.promptir import PromptIR
from deepinv.models.third_party.mprnet import MPRNet
