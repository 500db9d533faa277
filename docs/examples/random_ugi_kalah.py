"""A random Kalah(6,4) engine speaking UGI, written from docs/ugi.md alone (no mancalab
inside): it reads the position string, plays a random non-empty pit of the side to move and
names it as Kalah does (pit 1 is next to the mover's store: South's row reads 6..1 from the
left, North's row 1..6). Try it: mancalab arena "ugi:cmd=python3 random_ugi_kalah.py" greedy
"""
import random
import sys

position = None
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "ugi":
        print("id name random-kalah\noption name seed type spin default 0 min 0 max 9")
        print("ugiok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position" and words[1] == "fen":
        position = words[2:]
    elif words[0] == "go":
        north, south = position[0].split("/")
        side = position[3]
        row = [c for w in (north if side == "N" else south).split(",")
               for c in ([0] * int(w) if w.isdigit() else [int(w[:-1])])]
        pits = [i for i, seeds in enumerate(row) if seeds]
        pit = random.choice(pits)
        print(f"bestmove {pit + 1 if side == 'N' else 6 - pit}", flush=True)
    elif words[0] == "quit":
        break
