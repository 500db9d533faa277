"""Monte Carlo tree search (UCT) as in the reference programs, with compiled playouts.

The tree lives in flat numpy arrays and the whole select-expand-playout-backpropagate loop
runs in numba, calling the game's own kernels (passed in as compiled functions). Following
the ``mcts`` package the Gebeta program uses: children are expanded one at a time in legal-move
order, a child's value is ``sign * total / visits + c * sqrt(2 ln N / visits)`` with the sign
of the player to move at the parent, rewards are player 0's score margin at the end of a
uniformly random playout, and the move played is the root child with the best mean.
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..core import MAX_MOVES, ONGOING, WIN_0, WIN_1, MancalabError, Option, State, real, whole
from ..variants.common import bool_option
from .. import kernels, movemask
from ..borrow import borrowed
from ..search import NO_HISTORY, positions_seen
from .base import Player, new_seed, seed_option


# Urubugu and 3-row Gabata have no rule that stops a game from going on for ever, so a playout
# stops after this many moves and scores the material margin so far (most random games end
# sooner; 3-row Gabata's often do not).
PLAYOUT_PLIES = 1000


@njit(cache=True)
def random_playout(params, board, repetitions):
    """Play uniformly random moves to the end of the game (or PLAYOUT_PLIES; a position's
    ``repetitions``-th occurrence in the playout ends it, ``kernels.random_moves``); player
    0's margin of material (the score margin; 3-row Gabata: of seeds held, see
    kernels.material)."""
    kernels.random_moves(params, board, PLAYOUT_PLIES, repetitions)
    return kernels.material_margin(params, board)


@njit(cache=True, inline="always")
def _best_uct_child(node, first_child, n_expanded, visits, total, boards, c, proven):
    """The child with the best UCT value; ties broken uniformly at random (reservoir).
    Children proven lost for the mover are passed over while others remain."""
    sign = 1.0 if boards[node, -2] == 0 else -1.0
    lost = -1 if boards[node, -2] == 0 else 1
    # mean + c sqrt(2 ln N / n), as (sign total + c sqrt(2 ln N) sqrt(n)) / n: one division
    explore = c * math.sqrt(2.0 * math.log(visits[node]))
    best_value = -np.inf
    best = -1
    n_ties = 0
    for k in range(n_expanded[node]):
        child = first_child[node] + k
        if proven[child] == lost:  # chosen only when every child is lost
            value = -1e300
        else:
            n = visits[child]
            value = (sign * total[child] + explore * math.sqrt(n)) / n
        if value > best_value:
            best_value = value
            best = child
            n_ties = 1
        elif value == best_value:
            n_ties += 1
            if np.random.randint(n_ties) == 0:
                best = child
    return best


@njit(cache=True, inline="always")
def _prove(node, boards, first_child, n_legal, n_expanded, proven):
    """MCTS-Solver: a node is won for its mover when one child is, lost when all are lost.
    ``proven`` is +1 (player 0 wins with best play), -1 (player 1 wins) or 0 (not known)."""
    if boards[node, -1] != ONGOING:
        status = boards[node, -1]
        proven[node] = 1 if status == WIN_0 else (-1 if status == WIN_1 else 0)
        return
    won = 1 if boards[node, -2] == 0 else -1
    all_lost = n_expanded[node] == n_legal[node]
    for k in range(n_expanded[node]):
        result = proven[first_child[node] + k]
        if result == won:
            proven[node] = won
            return
        if result != -won:
            all_lost = False
    if all_lost:
        proven[node] = -won


@njit(cache=True, inline="always")
def _end_if_repeated(params, board, child, node, parent, keys, seen, repetitions):
    """Key the new ``child`` of ``node``, and end its game if its position occurs for the
    ``repetitions``-th time in the game and on its path."""
    key = kernels.position_key(board)
    keys[child] = key
    occurred = kernels.occurrences(seen, key) + 1
    while node >= 0:
        occurred += keys[node] == key
        node = parent[node]
    if occurred >= repetitions:
        kernels.stop(params, board)


@njit(cache=True, nogil=True)
def run_iterations(params, boards, first_child, n_legal,
                   n_expanded, parent, move, visits, total, n_nodes, iterations, c, proven,
                   solver, moves, scratch, repetitions, keys, seen):
    """Run up to ``iterations`` MCTS iterations; stop early when the arrays are nearly full
    or (``solver``) when the root is proven. ``moves`` (MAX_MOVES) and ``scratch`` (a board)
    are work space, made by the caller so that they are lent too (``mancalab.borrow``). A
    node whose position occurs for the ``repetitions``-th time (``kernels.repetitions_of``),
    counting the game's positions before the root (``seen``, ``search.positions_seen``) and
    those on its path (``keys``, a node's position key), ends the game there by its rule;
    a playout ends at a position's ``repetitions``-th occurrence in it.

    Returns (new node count, iterations done).
    """
    params, boards, first_child, n_legal = (borrowed(params), borrowed(boards),
                                            borrowed(first_child), borrowed(n_legal))
    n_expanded, parent, move, visits = (borrowed(n_expanded), borrowed(parent),
                                        borrowed(move), borrowed(visits))
    total, proven, moves, scratch = (borrowed(total), borrowed(proven), borrowed(moves),
                                     borrowed(scratch))
    keys, seen = borrowed(keys), borrowed(seen)
    if repetitions:
        keys[0] = kernels.position_key(boards[0])
    capacity = boards.shape[0]
    done = 0
    while done < iterations and n_nodes + MAX_MOVES <= capacity:
        if solver and proven[0] != 0:
            break
        node = 0
        while boards[node, -1] == ONGOING:  # selection and expansion
            if n_legal[node] < 0:  # reserve a block for all children at once
                n = movemask.to_array(kernels.legal_mask_inlined(params, boards[node]), moves)
                n_legal[node] = n
                first_child[node] = n_nodes
                for k in range(n):
                    move[n_nodes + k] = moves[k]
                n_nodes += n
            if n_expanded[node] < n_legal[node]:
                child = first_child[node] + n_expanded[node]
                n_expanded[node] += 1
                kernels.copy_into(boards[child], boards[node])
                kernels.play_inlined(params, boards[child], move[child])
                if repetitions and boards[child, -1] == ONGOING:
                    _end_if_repeated(params, boards[child], child, node, parent, keys, seen,
                                     repetitions)
                parent[child] = node
                n_legal[child] = -1
                n_expanded[child] = 0
                visits[child] = 0
                total[child] = 0.0
                proven[child] = 0
                node = child
                break
            node = _best_uct_child(node, first_child, n_expanded, visits, total, boards, c,
                                   proven)
        kernels.copy_into(scratch, boards[node])
        reward = random_playout(params, scratch, repetitions)
        while node >= 0:  # backpropagation
            visits[node] += 1
            total[node] += reward
            if solver and proven[node] == 0:
                _prove(node, boards, first_child, n_legal, n_expanded, proven)
            node = parent[node]
        done += 1
    return n_nodes, done


@njit(cache=True)
def _copy_subtree(root, source, target, queue):
    """Copy the subtree of node ``root`` of ``source`` (a tree's arrays: boards, first_child,
    n_legal, n_expanded, parent, move, visits, total, proven, keys) into ``target`` (arrays
    as large), ``root`` becoming node 0; children keep their blocks (one for all of a node's
    moves, those not expanded holding only their move). Returns the nodes copied. ``queue``
    (as long as the arrays): work space."""
    boards, first_child, n_legal, n_expanded, parent, move, visits, total, proven, keys = source
    (t_boards, t_first, t_legal, t_expanded, t_parent, t_move, t_visits, t_total, t_proven,
     t_keys) = target
    queue[0] = root
    t_parent[0], t_move[0] = -1, -1
    head, n_nodes = 0, 1
    while head < n_nodes:  # nodes in the order they are copied: node ``head`` is queue[head]
        old = queue[head]
        kernels.copy_into(t_boards[head], boards[old])
        t_legal[head], t_expanded[head] = n_legal[old], n_expanded[old]
        t_visits[head], t_total[head] = visits[old], total[old]
        t_proven[head], t_keys[head] = proven[old], keys[old]
        if n_legal[old] > 0:
            t_first[head] = n_nodes
            for k in range(n_legal[old]):
                child = first_child[old] + k
                t_move[n_nodes + k] = move[child]
                t_parent[n_nodes + k] = head
                queue[n_nodes + k] = child  # copied when its turn comes, if expanded
            n_nodes += n_legal[old]
        head += 1
        while head < n_nodes and head - t_first[t_parent[head]] >= \
                t_expanded[t_parent[head]]:
            head += 1  # a child not expanded: its move only
    return n_nodes


class SearchTree:
    """The arrays of one search, grown by doubling when full."""

    def __init__(self, root_board: np.ndarray, capacity: int = 1 << 16) -> None:
        width = root_board.shape[0]
        self.boards = np.zeros((capacity, width), dtype=np.int64)
        self.first_child = np.zeros(capacity, dtype=np.int64)
        self.n_legal = np.full(capacity, -1, dtype=np.int64)
        self.n_expanded = np.zeros(capacity, dtype=np.int64)
        self.parent = np.full(capacity, -1, dtype=np.int64)
        self.move = np.full(capacity, -1, dtype=np.int64)
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.total = np.zeros(capacity, dtype=np.float64)
        self.proven = np.zeros(capacity, dtype=np.int8)
        self.keys = np.zeros(capacity, dtype=np.uint64)  # a node's position key
        self.moves = np.empty(MAX_MOVES, dtype=np.int64)  # work space of the iterations
        self.scratch = np.empty(width, dtype=np.int64)
        self.boards[0] = root_board
        self.n_nodes = 1
        self.grown_in = 0.0  # seconds the last doubling took

    FIELDS = ("boards", "first_child", "n_legal", "n_expanded", "parent", "move", "visits",
              "total", "proven", "keys")

    def arrays(self) -> tuple:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def subtree(self, node: int) -> SearchTree:
        """A new tree of ``node``'s subtree, ``node`` its root: what the search found below a
        position reached since is kept for the next move."""
        tree = SearchTree(self.boards[node], capacity=self.boards.shape[0])
        tree.n_nodes = _copy_subtree(node, self.arrays(), tree.arrays(),
                                     np.empty(self.boards.shape[0], dtype=np.int64))
        return tree

    def find(self, board: np.ndarray, below: int, plies: int) -> int:
        """The node within ``plies`` moves of node ``below`` whose position is ``board``, or
        -1 (expanded nodes only: others hold no position yet)."""
        if np.array_equal(self.boards[below], board):
            return below
        if plies == 0 or self.n_legal[below] <= 0:
            return -1
        first = self.first_child[below]
        for child in range(first, first + self.n_expanded[below]):
            found = self.find(board, child, plies - 1)
            if found >= 0:
                return found
        return -1

    def child_of(self, move: int) -> int:
        """The root's child by ``move``, or -1 if it was never expanded."""
        first = self.first_child[0]
        for child in range(first, first + max(0, self.n_expanded[0])):
            if self.move[child] == move:
                return child
        return -1

    def reset(self, root_board: np.ndarray) -> None:
        """Start a new search from ``root_board`` in these arrays (a node's fields are set
        when it is made, so only the root's need setting)."""
        self.boards[0] = root_board
        self.n_legal[0], self.n_expanded[0], self.parent[0], self.move[0] = -1, 0, -1, -1
        self.visits[0], self.total[0], self.proven[0] = 0, 0.0, 0
        self.n_nodes = 1
        self.grown_in = 0.0

    def grow(self) -> None:
        started = time.perf_counter()
        for name in self.FIELDS:
            old = getattr(self, name)
            new = np.zeros((2 * old.shape[0],) + old.shape[1:], dtype=old.dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        self.grown_in = time.perf_counter() - started

    @property
    def full(self) -> bool:
        """No room for another node's children."""
        return self.n_nodes + MAX_MOVES > self.boards.shape[0]

    def room_seconds(self) -> float:
        """About the seconds that making room for the next iterations takes: none while
        there is room, else twice the last doubling's (the next copies twice as much; about
        0.13 s for half a million nodes)."""
        return 2 * self.grown_in if self.full else 0.0

    def run(self, variant, iterations: int, c: float, solver: bool = False,
            seen: np.ndarray = NO_HISTORY) -> int:
        """Up to ``iterations`` more iterations (``run_iterations``; ``seen``: the game's
        positions before the root, ``search.positions_seen``)."""
        if self.full:
            self.grow()
        self.n_nodes, done = run_iterations(
            variant.params, self.boards, self.first_child,
            self.n_legal, self.n_expanded, self.parent, self.move, self.visits, self.total,
            self.n_nodes, iterations, c, self.proven, solver, self.moves, self.scratch,
            kernels.repetitions_of(variant), self.keys, seen)
        return done

    @property
    def solved(self) -> bool:
        return self.proven[0] != 0

    def root_children(self) -> list[tuple[int, int, float, int]]:
        """(move, visits, mean reward, proven result) per root child, the reward and result
        for the player to move at the root (proven: 1 won, -1 lost, 0 not known)."""
        sign = 1.0 if self.boards[0, -2] == 0 else -1.0
        first = self.first_child[0]
        return [(int(self.move[ch]), int(self.visits[ch]), sign * self.total[ch] / self.visits[ch],
                 int(sign * self.proven[ch]))
                for ch in range(first, first + self.n_expanded[0]) if self.visits[ch] > 0]


REUSE_PLIES = 4  # how deep below the move played a kept tree is searched for the position
# (the reply, or further moves of a player who moves again)
KEPT_NODES = 1 << 16  # a thread keeps its tree's arrays up to this size (about 12 MB)
_kept = threading.local()


def tree_for(root_board: np.ndarray) -> SearchTree:
    """A search tree from ``root_board`` in this thread's arrays of its last search, where
    it kept them (making 65,536 nodes' arrays took about 1 ms, a sixth of a 1,000-playout
    decision); a tree grown past ``KEPT_NODES`` is not kept (``keep``)."""
    tree = getattr(_kept, "tree", None)
    if tree is None or tree.boards.shape[1] != root_board.shape[0]:
        return SearchTree(root_board)
    _kept.tree = None  # in use: a search inside this one (none today) gets its own
    tree.reset(root_board)
    return tree


def keep(tree: SearchTree) -> None:
    """Keep ``tree``'s arrays for this thread's next search, if they are not too big."""
    if tree.boards.shape[0] <= KEPT_NODES:
        _kept.tree = tree


_warmed: set[int] = set()  # the games whose search this process has compiled or loaded


def warm_up(state: State | None = None) -> None:
    """Compile (or load from the cache) the search for ``state``'s game (default: the first
    registered game's) now, not inside the first timed move (once a game:
    ``mancalab.params``)."""
    from ..variants import VARIANTS

    state = state or next(iter(VARIANTS.values()))().start()
    if state.variant.game_id in _warmed:
        return
    tree = SearchTree(state.board, capacity=2 * MAX_MOVES)
    run_iterations(state.variant.params, tree.boards, tree.first_child, tree.n_legal,
                   tree.n_expanded, tree.parent, tree.move, tree.visits, tree.total, 1, 0, 1.0,
                   tree.proven, True, tree.moves, tree.scratch,
                   kernels.repetitions_of(state.variant), tree.keys, NO_HISTORY)
    _warmed.add(state.variant.game_id)


class MCTSPlayer(Player):
    """UCT with random playouts; by time (default 1.5 s a move) or a fixed number of playouts."""

    name = "mcts"
    thinks_by_clock = True
    option_specs = {
        "time": Option(1.5, real, lambda v: v > 0, "seconds a move, above 0"),
        "playouts": Option(0, whole, lambda v: v >= 0,
                           "playouts a move (0: search by time), a whole number >= 0"),
        "exploration": Option(math.sqrt(2), real, lambda v: v >= 0, "a number >= 0"),
        "solver": Option(True, bool_option, lambda v: True,
                         "true or false: prove wins and losses in the tree (MCTS-Solver)"),
        "seed": seed_option("of the playouts"),
        "threads": Option(1, whole, lambda v: 1 <= v <= 64,
                          "searches run side by side, one a core (root parallel), 1..64"),
        "reuse": Option(False, bool_option, lambda v: True,
                        "true or false: keep the subtree of the position reached since its "
                        "last move (one thread; a tree of at most 65,536 nodes)"),
    }
    batch = 256  # iterations between clock checks

    def __init__(self, **options) -> None:
        super().__init__(**options)
        seed = self.options["seed"]
        self._rng = np.random.default_rng(new_seed() if seed is None else seed)
        self._kept: tuple[SearchTree, int] | None = None  # a tree and its node just played

    def choose(self, state: State, among: list[int] | None = None) -> int:
        """The move with the best playouts; with ``among`` (legal moves), the best of those
        (the perfect player's tie-break among moves of one exact value)."""
        legal = state.legal_moves() if among is None else among
        if not legal:
            raise MancalabError("the game is over: there is no move to choose")
        warm_up(state)  # compiled for this game before its clock starts
        started = time.perf_counter()
        if len(legal) == 1:  # nothing to think about
            self.last_info = {"playouts": 0, "seconds": 0.0, "value": None, "visits": 0}
            return legal[0]
        threads = self.capped_threads(self.options["threads"])
        # numba's generator is global to each thread: every search seeds its own from this
        # player's stream, so a player's choices depend only on its seed and the positions
        seeds = [int(seed) for seed in self._rng.integers(2**31, size=threads)]
        deadline = started + self.capped(math.inf if self.options["playouts"]
                                         else self.options["time"])
        seen = positions_seen(self.history(state))  # the game's positions, where they recur
        if threads == 1:
            trees = [self._search(state, seeds[0], deadline, self.options["playouts"], seen,
                                  self._reused(state))]
        else:  # root parallel: a tree a core (the search releases the interpreter lock)
            share = -(-self.options["playouts"] // threads)
            with ThreadPoolExecutor(threads, thread_name_prefix="mancalab-mcts") as pool:
                trees = list(pool.map(
                    lambda seed: self._search(state, seed, deadline, share, seen), seeds))
        move, visits, mean, proven = _merged(trees, among)
        if threads == 1 and self.options["reuse"]:  # kept while as small as a thread's
            tree = trees[0][0]
            self._kept = (tree, tree.child_of(move)) if tree.boards.shape[0] <= KEPT_NODES \
                else None
        elif threads == 1:
            keep(trees[0][0])
        self.last_info = {"playouts": sum(done for _, done in trees),
                          "seconds": time.perf_counter() - started, "value": float(mean),
                          "visits": visits, "threads": threads,
                          "proven": {1: "win", -1: "loss", 0: None}[proven]}
        return move

    def _reused(self, state: State) -> SearchTree | None:
        """With ``reuse``, the subtree of the last search below the move it chose whose
        position is ``state`` (the opponent's reply, or the same player's further move), or
        None."""
        kept, self._kept = self._kept, None
        if kept is None or kept[1] < 0:
            return None
        tree, played = kept
        if tree.boards.shape[1] != state.board.shape[0]:
            return None
        found = tree.find(state.board, played, REUSE_PLIES)
        return None if found < 0 or tree.visits[found] == 0 else tree.subtree(found)

    def _search(self, state: State, seed: int, deadline: float, playouts: int,
                seen: np.ndarray = NO_HISTORY, tree: SearchTree | None = None):
        """One tree grown until ``deadline`` (or ``playouts``), from ``tree`` if given:
        (tree, playouts done)."""
        kernels.seed_rng(seed)
        tree = tree or tree_for(state.board)
        c, solver = self.options["exploration"], self.options["solver"]
        done = 0
        while not tree.solved and (done == 0 or (  # one batch at least: a move needs it
                (not playouts or done < playouts) and not self.stopped
                and time.perf_counter() + tree.room_seconds() < deadline)):
            done += tree.run(state.variant, min(self.batch, playouts - done) if playouts
                             else self.batch, c, solver, seen)
        return tree, done


def _merged(trees, among: list[int] | None = None) -> tuple[int, int, float, int]:
    """The move to play (of ``among`` if given) from one or more trees of the same root: a
    proven win first, a proven loss last, else the best mean over all trees' playouts (then
    the most visits)."""
    visits, totals, proven = {}, {}, {}
    for tree, _ in trees:
        for move, count, mean, result in tree.root_children():
            if among is not None and move not in among:
                continue
            visits[move] = visits.get(move, 0) + count
            totals[move] = totals.get(move, 0.0) + mean * count
            if result:
                proven[move] = result
    children = [(move, visits[move], totals[move] / visits[move], proven.get(move, 0))
                for move in visits]
    if not children:  # the tree was proven before it tried any of ``among``
        return among[0], 0, 0.0, 0
    return max(children, key=lambda ch: (ch[3], ch[2], ch[1]))
