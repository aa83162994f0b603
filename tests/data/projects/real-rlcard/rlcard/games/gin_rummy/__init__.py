from rlcard.games.gin_rummy.game import GinRummyGame as Game
