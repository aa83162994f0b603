from genrl.bandit.bandits.data_bandits.adult_bandit import AdultDataBandit
from genrl.bandit.bandits.data_bandits.base import DataBasedBandit
from genrl.bandit.bandits.data_bandits.census_bandit import CensusDataBandit
from genrl.bandit.bandits.data_bandits.covertype_bandit import CovertypeDataBandit
from genrl.bandit.bandits.data_bandits.magic_bandit import MagicDataBandit
from genrl.bandit.bandits.data_bandits.mushroom_bandit import MushroomDataBandit
from genrl.bandit.bandits.data_bandits.statlog_bandit import StatlogDataBandit
