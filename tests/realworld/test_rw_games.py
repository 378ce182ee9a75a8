"""Real-world patterns: game-playing code written for Numba, restated in our own words with the
import switched: tic-tac-toe by minimax with alpha-beta pruning over a flat board (winning lines
unpacked from a module-level array, chained `==`, `-math.inf`/`np.inf` bounds, `np.nanargmax` of
the scores), connect four by negamax (pieces dropped into an int8 board, wins found by
`(board[r, c:c + 4] == piece).all()` and `all(...)` of generator expressions, windows scored by
`np.count_nonzero`, the valid columns a list comprehension, `(value, column)` tuples returned),
Monte Carlo tree search (UCT) over a Nim game with the tree kept in arrays and a typed
`Dict` of typed `List`s of children (the value type a global `types.ListType(types.int64)`, as
Numba needs it outside the function), sudoku by recursive backtracking, N-queens counted with bit
masks and defaulted recursion parameters, and 2048's moves (`np.rot90` both ways, a row slid by a
list comprehension, `b[r], s = slide_row(b[r])`). Each is compared with CPython running the same
source."""
import math

import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import njit, jit, int64, int8, types  # noqa: F401
from pyjit.typed import List, Dict
from util import check


# ---- tic-tac-toe minimax with alpha-beta ----
LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]])

@njit
def winner(board):
    for k in range(LINES.shape[0]):
        a, b, c = LINES[k]
        if board[a] != 0 and board[a] == board[b] == board[c]:
            return board[a]
    return 0

@njit
def alphabeta(board, player, alpha, beta, depth):
    w = winner(board)
    if w != 0:
        return w * (10 - depth)
    if np.all(board != 0):
        return 0
    if player == 1:
        best = -math.inf
        for m in range(9):
            if board[m] == 0:
                board[m] = 1
                best = max(best, alphabeta(board, -1, alpha, beta, depth + 1))
                board[m] = 0
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
        return best
    else:
        best = math.inf
        for m in range(9):
            if board[m] == 0:
                board[m] = -1
                best = min(best, alphabeta(board, 1, alpha, beta, depth + 1))
                board[m] = 0
                beta = min(beta, best)
                if alpha >= beta:
                    break
        return best

@njit
def best_move(board, player):
    scores = np.full(9, np.nan)
    for m in range(9):
        if board[m] == 0:
            board[m] = player
            scores[m] = alphabeta(board, -player, -np.inf, np.inf, 1)
            board[m] = 0
    if player == 1:
        return np.nanargmax(scores), scores
    return np.nanargmin(scores), scores

# ---- connect four: drop, win check, negamax with a depth limit ----
ROWS, COLS = 6, 7

@njit
def drop(board, col, piece):
    for r in range(ROWS - 1, -1, -1):
        if board[r, col] == 0:
            board[r, col] = piece
            return r
    return -1

@njit
def connected4(board, piece):
    for r in range(ROWS):
        for c in range(COLS - 3):
            if (board[r, c:c + 4] == piece).all():
                return True
    for r in range(ROWS - 3):
        for c in range(COLS):
            if (board[r:r + 4, c] == piece).all():
                return True
    for r in range(ROWS - 3):
        for c in range(COLS - 3):
            if all(board[r + i, c + i] == piece for i in range(4)):
                return True
            if all(board[r + 3 - i, c + i] == piece for i in range(4)):
                return True
    return False

@njit
def score_window(window, piece):
    opp = 1 if piece == 2 else 2
    cnt = np.count_nonzero(window == piece)
    empty = np.count_nonzero(window == 0)
    if cnt == 4:
        return 100
    if cnt == 3 and empty == 1:
        return 5
    if cnt == 2 and empty == 2:
        return 2
    if np.count_nonzero(window == opp) == 3 and empty == 1:
        return -4
    return 0

@njit
def heuristic(board, piece):
    s = 3 * np.count_nonzero(board[:, COLS // 2] == piece)
    for r in range(ROWS):
        for c in range(COLS - 3):
            s += score_window(board[r, c:c + 4], piece)
    for c in range(COLS):
        for r in range(ROWS - 3):
            s += score_window(board[r:r + 4, c], piece)
    return s

@njit
def negamax(board, depth, alpha, beta, piece):
    opp = 3 - piece
    if connected4(board, opp):
        return -1000 - depth, -1
    valid = [c for c in range(COLS) if board[0, c] == 0]
    if depth == 0 or len(valid) == 0:
        return heuristic(board, piece), -1
    best, best_col = -10 ** 9, valid[0]
    for c in valid:
        r = drop(board, c, piece)
        v, _ = negamax(board, depth - 1, -beta, -alpha, opp)
        v = -v
        board[r, c] = 0
        if v > best:
            best, best_col = v, c
        alpha = max(alpha, v)
        if alpha >= beta:
            break
    return best, best_col

def c4_position():
    b = np.zeros((ROWS, COLS), dtype=np.int8)
    for i, c in enumerate([3, 3, 4, 2, 4, 4, 2, 5]):
        drop.py_func(b, c, 1 + i % 2)
    return b

# ---- MCTS (UCT) for a Nim-like game with arrays as the tree ----
INT_LIST = types.ListType(types.int64)
@njit
def mcts_nim(stones, max_take, n_iter, seed):
    np.random.seed(seed)
    cap = n_iter + 2
    visits = np.zeros(cap)
    wins = np.zeros(cap)
    state = np.zeros(cap, dtype=np.int64)
    player = np.zeros(cap, dtype=np.int64)
    parent = -np.ones(cap, dtype=np.int64)
    children = Dict.empty(key_type=types.int64, value_type=INT_LIST)
    move_of = np.zeros(cap, dtype=np.int64)
    state[0] = stones
    n_nodes = 1
    for it in range(n_iter):
        node = 0
        # selection
        while node in children and len(children[node]) == min(max_take, state[node]):
            best, best_u = -1, -1.0
            for ch in children[node]:
                u = wins[ch] / visits[ch] + 1.4 * math.sqrt(math.log(visits[node]) / visits[ch])
                if u > best_u:
                    best, best_u = ch, u
            node = best
        # expansion
        if state[node] > 0:
            if node not in children:
                children[node] = List.empty_list(types.int64)
            take = len(children[node]) + 1
            ch = n_nodes
            n_nodes += 1
            state[ch] = state[node] - take
            player[ch] = 1 - player[node]
            parent[ch] = node
            move_of[ch] = take
            children[node].append(ch)
            node = ch
        # rollout: the player who takes the last stone wins
        s = state[node]
        turn = 1 - player[node]
        last = player[node]
        while s > 0:
            t = np.random.randint(1, min(max_take, s) + 1)
            s -= t
            last = turn
            turn = 1 - turn
        # backpropagation
        while node != -1:
            visits[node] += 1
            if last == player[node]:
                wins[node] += 1
            node = parent[node]
    best, most = 0, -1.0
    for ch in children[0]:
        if visits[ch] > most:
            best, most = move_of[ch], visits[ch]
    return best, n_nodes

# ---- sudoku by backtracking ----
@njit
def sudoku_ok(g, r, c, v):
    for k in range(9):
        if g[r, k] == v or g[k, c] == v:
            return False
    br, bc = 3 * (r // 3), 3 * (c // 3)
    return not (g[br:br + 3, bc:bc + 3] == v).any()

@njit
def sudoku_solve(g):
    for r in range(9):
        for c in range(9):
            if g[r, c] == 0:
                for v in range(1, 10):
                    if sudoku_ok(g, r, c, v):
                        g[r, c] = v
                        if sudoku_solve(g):
                            return True
                        g[r, c] = 0
                return False
    return True

@njit
def solve_copy(g):
    h = g.copy()
    ok = sudoku_solve(h)
    return ok, h

PUZZLE = np.array([[int(ch) for ch in row] for row in (
    "530070000", "600195000", "098000060", "800060003", "400803001",
    "700020006", "060000280", "000419005", "000080079")], dtype=np.int64)

# ---- N-queens counted with bit masks ----
@njit
def queens(n, row=0, cols=0, d1=0, d2=0):
    if row == n:
        return 1
    count = 0
    free = ~(cols | d1 | d2) & ((1 << n) - 1)
    while free:
        bit = free & -free
        free ^= bit
        count += queens(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1)
    return count

# ---- 2048: slide a row left and merge ----
@njit
def slide_row(row):
    tiles = [v for v in row if v != 0]
    out = np.zeros_like(row)
    score = 0
    i = k = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out[k] = 2 * tiles[i]
            score += out[k]
            i += 2
        else:
            out[k] = tiles[i]
            i += 1
        k += 1
    return out, score

@njit
def move_board(board, direction):
    b = np.rot90(board, direction).copy()
    total = 0
    for r in range(b.shape[0]):
        b[r], s = slide_row(b[r])
        total += s
    return np.rot90(b, -direction).copy(), total

BOARD2048 = np.array([[2, 2, 4, 0], [0, 4, 4, 4], [8, 0, 8, 16], [2, 2, 2, 2]])
CASES = [
    ("alphabeta_empty", best_move, (np.zeros(9, dtype=np.int64), 1)),
    ("alphabeta_mid", best_move, (np.array([1, -1, 0, 0, 1, 0, 0, 0, -1]), -1)),
    ("negamax", negamax, (c4_position(), 4, -10 ** 9, 10 ** 9, 1)),
    ("mcts_nim", mcts_nim, (15, 3, 400, 2)),
    ("sudoku", solve_copy, (PUZZLE,)),
    ("queens", queens, (8,)),
    ("move_board0", move_board, (BOARD2048, 0)),
    ("move_board1", move_board, (BOARD2048, 1)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
