from rlcard.games.mahjong.dealer import MahjongDealer as Dealer
from rlcard.games.mahjong.card import MahjongCard as Card
from rlcard.games.mahjong.player import MahjongPlayer as Player
from rlcard.games.mahjong.judger import MahjongJudger as Judger
from rlcard.games.mahjong.round import MahjongRound as Round
from rlcard.games.mahjong.game import MahjongGame as Game

