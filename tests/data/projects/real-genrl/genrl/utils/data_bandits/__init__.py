from genrl.utils.data_bandits.adult_bandit import AdultDataBandit
from genrl.utils.data_bandits.base import DataBasedBandit
from genrl.utils.data_bandits.census_bandit import CensusDataBandit
from genrl.utils.data_bandits.covertype_bandit import CovertypeDataBandit
from genrl.utils.data_bandits.magic_bandit import MagicDataBandit
from genrl.utils.data_bandits.mushroom_bandit import MushroomDataBandit
from genrl.utils.data_bandits.statlog_bandit import StatlogDataBandit
