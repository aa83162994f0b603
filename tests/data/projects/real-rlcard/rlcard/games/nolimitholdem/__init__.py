from rlcard.games.nolimitholdem.dealer import NolimitholdemDealer as Dealer
from rlcard.games.nolimitholdem.judger import NolimitholdemJudger as Judger
from rlcard.games.nolimitholdem.player import NolimitholdemPlayer as Player
from rlcard.games.nolimitholdem.round import Action
from rlcard.games.nolimitholdem.round import NolimitholdemRound as Round
from rlcard.games.nolimitholdem.game import NolimitholdemGame as Game

