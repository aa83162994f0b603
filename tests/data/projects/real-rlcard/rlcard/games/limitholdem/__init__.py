from rlcard.games.limitholdem.dealer import LimitHoldemDealer as Dealer
from rlcard.games.limitholdem.judger import LimitHoldemJudger as Judger
from rlcard.games.limitholdem.player import LimitHoldemPlayer as Player
from rlcard.games.limitholdem.player import PlayerStatus
from rlcard.games.limitholdem.round import LimitHoldemRound as Round
from rlcard.games.limitholdem.game import LimitHoldemGame as Game

