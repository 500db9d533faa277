#!/usr/bin/env python3
"""A mancalab engine in 30 lines: it plays a random legal move (docs/engine-protocol.md)."""
import random
import sys


def send(line):
    print(line, flush=True)


moves = []
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    command = words[0]
    if command == "mep":
        send("id name Random example")
        send("mepok 1")
    elif command == "game":
        game = words[1]  # then the options, as KEY=VALUE words
    elif command == "position":
        cells = [int(count) for count in words[1].split(",")]
        to_move = int(words[2])
    elif command == "moves":
        moves = words[1:]
    elif command == "go":
        send(f"info choosing among {len(moves)} moves")
        send("move " + random.choice(moves))
    elif command == "quit":
        break
