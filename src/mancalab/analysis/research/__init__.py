"""Studies of the games: fair starts, Urubugu's counter-settings and free settings, self-play
metrics, data for learning, and the results files of long runs."""
