from rlcard.games.blackjack.dealer import BlackjackDealer as Dealer
from rlcard.games.blackjack.judger import BlackjackJudger as Judger
from rlcard.games.blackjack.player import BlackjackPlayer as Player
from rlcard.games.blackjack.game import BlackjackGame as Game

