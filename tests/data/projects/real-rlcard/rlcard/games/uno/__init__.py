from rlcard.games.uno.dealer import UnoDealer as Dealer
from rlcard.games.uno.judger import UnoJudger as Judger
from rlcard.games.uno.player import UnoPlayer as Player
from rlcard.games.uno.round import UnoRound as Round
from rlcard.games.uno.game import UnoGame as Game

