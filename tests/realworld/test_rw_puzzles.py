"""Real-world patterns: puzzle solutions (Advent of Code style) written for Numba.

A notebook of puzzle solutions whose fast versions are `@numba.njit` functions over grids,
written as `import numba` code (switched here to `import pyjit as numba`): trees seen from a
grid's edges by rotating it four times (`grid, product = map(np.rot90, [grid, product])`, an
explicit `'int64(int64[:, :])'` signature, `np.ndenumerate`), Dijkstra over a grid with
`heapq` of `(distance, (y, x))` and a path image returned or None (`np.empty((*grid.shape, 2))`),
a light beam through mirrors in a `match` statement over byte codes, falling rocks tested by
`(grid[...] & rock).any()`, a circular list mixed in place through index arrays, the union of
cuboids as sets of tuples of tuples rebuilt with `numba.cpython.unsafe.tuple.tuple_setitem` and
`numba.np.unsafe.ndarray.to_fixed_tuple` (`list.extend` of a tuple, set differences), moving
elves kept in a set walked with `enumerate` and `zip(set, array)`, a crucible's shortest path in a
dict keyed by `(index, direction, steps)` over `grid.flat`, path intersections by
`np.linalg.solve` inside `try`/`except Exception`, equations searched recursively, trail counts
in sets and dicts of tuples, a snailfish magnitude by a list used as a stack; and grids of
characters (NumPy 'U1' arrays) read and written as str: sea cucumbers moving in a grid, monkeys
throwing items chosen by an operator array (`zip` of five sequences, lists of lists cleared),
a blizzard valley searched through sets of positions, a maze's best seats marked 'O'. Each is
compared with CPython (`py_func`) and with Numba where it is installed. PYTEST_DONT_REWRITE:
the functions keep their own asserts.
"""
import heapq  # noqa: F401  (the source's)
import math  # noqa: F401  (the source's)

import numpy as np
import pytest

import pyjit as numba
from util import assert_same, numba_or_none

@numba.njit('int64(int64[:, :])')
def day8_part2_inner(grid):
    product = np.ones_like(grid)
    for _ in range(4):
        for (y, x), value in np.ndenumerate(grid):
            num = 0
            for xx in range(x - 1, -1, -1):
                num += 1
                if grid[y, xx] >= value:
                    break
            product[y, x] *= num
        grid, product = map(np.rot90, [grid, product])
    return product.max()


@numba.njit
def day15_func(grid, visualize):
    start = 1, 1
    destination = grid.shape[0] - 2, grid.shape[1] - 2
    distances = np.full(grid.shape, 10**6)
    distances[start] = 0
    prev = np.empty((*grid.shape, 2), np.int32)
    priority_queue = [(0, start)]
    while priority_queue:
        distance, yx = heapq.heappop(priority_queue)
        # if distance > distances[yx]: continue  # Skip finalized.  No change in speed.
        if yx == destination:
            path_image = None
            if visualize:
                path_image = grid < 0
                while yx != start:
                    path_image[yx] = True
                    yx = prev[yx][0], prev[yx][1]
            return distance, path_image
        y, x = yx
        for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            yx2 = y + dy, x + dx
            distance2 = distance + grid[yx2]
            if distance2 < distances[yx2]:
                distances[yx2] = distance2
                heapq.heappush(priority_queue, (distance2, yx2))
                if visualize:
                    prev[yx2] = yx
    raise ValueError('No solution.')


@numba.njit
def day16_num_visited(grid, start):  # start == (y, x, dir); dir 0,1,2,3 == S,E,N,W.
    visited = np.full((*grid.shape, 4), False)
    stack = [start]
    while stack:
        y, x, dir = stack.pop()
        while 0 <= y < grid.shape[0] and 0 <= x < grid.shape[1] and not visited[y, x, dir]:
            visited[y, x, dir] = True
            match grid[y, x]:
                case 92:  # ord('\\').
                    dir = (1, 0, 3, 2)[dir]
                case 47:  # ord('/').
                    dir = 3 - dir
                case 45:  # ord('-').
                    if dir in (0, 2):
                        dir = 1
                        stack.append((y, x - 1, 3))
                case 124:  # ord('|').
                    if dir in (1, 3):
                        dir = 0
                        stack.append((y - 1, x, 2))
                case _:
                    if visited[y, x, (2, 3, 0, 1)[dir]]:  # Optional tiny speedup.
                        break
            y, x = y + (1, 0, -1, 0)[dir], x + (0, 1, 0, -1)[dir]

    return (visited[..., 0] | visited[..., 1] | visited[..., 2] | visited[..., 3]).sum()


@numba.njit
def day17_drop(grid, rock, y, x, jet, jet_index):
    ry, rx = rock.shape
    while True:
        dx = jet[jet_index[0]]
        jet_index[0] = (jet_index[0] + 1) % len(jet)
        if (
                x + dx >= 0
                and x + dx + rx <= 7
                and not (grid[y : y + ry, x + dx : x + dx + rx] & rock).any()
        ):
            x += dx
        if y > 0 and not (grid[y - 1 : y - 1 + ry, x : x + rx] & rock).any():
            y -= 1
        else:
            grid[y : y + ry, x : x + rx] |= rock
            return y + ry


@numba.njit
def day20_mix(a_value, a_prev, a_next):
    n = len(a_value)
    for i, value in enumerate(a_value):
        prev_, next_ = a_prev[i], a_next[i]
        offset = value % (n - 1)
        if offset != 0:
            a_prev[next_], a_next[prev_] = prev_, next_  # Disconnect node i.
            prev_ = i
            if offset < n // 2:
                for _ in range(offset):
                    prev_ = a_next[prev_]
            else:
                for _ in range(n - offset):
                    prev_ = a_prev[prev_]
            next_ = a_next[prev_]
            a_prev[i], a_next[i], a_next[prev_], a_prev[next_] = prev_, next_, i, i


@numba.njit
def day22_func(states, cuboids):
    def inside(a, b):
        (ax, ay, az), (bx, by, bz) = a, b
        return (ax[0] >= bx[0] and ay[0] >= by[0] and az[0] >= bz[0]) and (
                ax[1] <= bx[1] and ay[1] <= by[1] and az[1] <= bz[1]
        )

    def outside(a, b):
        (ax, ay, az), (bx, by, bz) = a, b
        return (ax[0] > bx[1] or ay[0] > by[1] or az[0] > bz[1]) or (
                ax[1] < bx[0] or ay[1] < by[0] or az[1] < bz[0]
        )

    def replace(tuple_, index, value):
        # return tuple_[:index] + (value,) + tuple_[index + 1 :]
        setitem = numba.cpython.unsafe.tuple.tuple_setitem
        return setitem(tuple_, index, value)

    def to_tuple(array):
        # return tuple(array[0]), tuple(array[1]), tuple(array[2])
        to_fixed = numba.np.unsafe.ndarray.to_fixed_tuple
        return to_fixed(array[0], 2), to_fixed(array[1], 2), to_fixed(array[2], 2)

    def subdivide_a_subtracting_b(a, b):  # Faster; smaller number of subcells.
        boxes = [a]
        finalized: list[tuple[tuple[int, int, int], tuple[int, int, int]]] = []
        dims = np.argsort(np.array([a[0][0] - a[0][1], a[1][0] - a[1][1], a[2][0] - a[2][1]]))
        for dim in dims:
            new_boxes = []
            for box in boxes:
                (a1, a2), (b1, b2) = box[dim], b[dim]
                # assert not inside(box, b) and not outside(box, b)
                if a1 >= b1 and a2 <= b2:
                    new_boxes.append(box)  # No subdivision along this dimension.
                    continue
                if a1 < b1 and a2 > b2:
                    finalized.extend((replace(box, dim, (a1, b1 - 1)),
                                      replace(box, dim, (b2 + 1, a2))))
                    box2 = replace(box, dim, (b1, b2))
                elif a1 >= b1 and a2 > b2:
                    box2 = replace(box, dim, (a1, b2))
                    finalized.append(replace(box, dim, (b2 + 1, a2)))
                else:  # a1 < b1 and a2 <= b2:
                    finalized.append(replace(box, dim, (a1, b1 - 1)))
                    box2 = replace(box, dim, (b1, a2))
                if outside(box2, b):
                    finalized.append(box2)
                elif not inside(box2, b):
                    new_boxes.append(box2)
            boxes = new_boxes
        return finalized

    # Disjoint union of "on" cubes.
    cells = {to_tuple(cuboids[0])} - {to_tuple(cuboids[0])}  # Typed empty set.

    for state, cuboid_array in zip(states, cuboids):
        cuboid = to_tuple(cuboid_array)
        cells_to_add, cells_to_delete = [], []
        for cell in cells:
            if outside(cell, cuboid):
                continue
            cells_to_delete.append(cell)
            if not inside(cell, cuboid):
                cells_to_add.extend(subdivide_a_subtracting_b(cell, cuboid))

        if state:
            cells_to_add.append(cuboid)
        cells = cells.difference(set(cells_to_delete)).union(set(cells_to_add))

    total = 0
    for cell in cells:
        volume = 1
        for c in range(3):
            volume *= cell[c][1] - cell[c][0] + 1
        total += volume
    return total


@numba.njit
def day23_process(grid, part2, stride=570):
    current = set()
    for y, x in np.argwhere(grid):
        current.add(y * stride + x + stride // 4)
    offsets8 = (-stride - 1, -stride, -stride + 1, -1, 1, stride - 1, stride, stride + 1)
    dirs = [-stride, stride, -1, 1]
    neighb3s = [
            (-stride - 1, -stride, -stride + 1),
            (stride - 1, stride, stride + 1),
            (-stride - 1, -1, stride - 1),
            (-stride + 1, 1, stride + 1),
    ]
    elf_proposed = np.full(len(current), 0)

    for round_index in range(10**8 if part2 else 10):
        elf_proposed[:] = 10**8
        all_proposed = set()
        collisions = set()
        for elf_index, yx in enumerate(current):
            has_nearby = False
            for dyx in offsets8:
                if yx + dyx in current:
                    has_nearby = True
                    break
            if has_nearby:
                for i in range(4):
                    possible = True
                    for dyx2 in neighb3s[i]:
                        if yx + dyx2 in current:
                            possible = False
                            break
                    if possible:
                        yx2 = yx + dirs[i]
                        if yx2 in all_proposed:
                            collisions.add(yx2)
                        else:
                            elf_proposed[elf_index] = yx2
                            all_proposed.add(yx2)
                        break

        dirs = dirs[1:] + dirs[0:1]
        neighb3s = neighb3s[1:] + neighb3s[0:1]

        have_moved = False
        future = set()
        for yx, yx2 in zip(current, elf_proposed):
            if yx2 != 10**8 and yx2 not in collisions:
                future.add(yx2)
                have_moved = True
            else:
                future.add(yx)

        current = future
        if part2 and not have_moved:
            return round_index + 1

    xmin, ymin, xmax, ymax = 10**8, 10**8, -(10**8), -(10**8)
    for yx in current:
        y, x = yx // stride, (yx % stride) - stride // 4
        xmin, ymin, xmax, ymax = min(xmin, x), min(ymin, y), max(xmax, x), max(ymax, y)
    return (ymax - ymin + 1) * (xmax - xmin + 1) - len(current)


@numba.njit  # Faster numba, using flat array, padding, advance min dn.
def day17c_compute(grid, part2, pad):
    ny, nx = grid.shape
    grid_flat = grid.flat
    start_i, target_i = pad * nx + pad, (ny - 1 - pad) * nx + (nx - 1 - pad)
    dir2s = (1, 3), (2, 0), (3, 1), (0, 2)
    dn2 = 4 if part2 else 1
    offsets = nx, 1, -nx, -1
    distances = {}  # state -> distance with state == (i, dir, dn) with dir 0,1,2,3 == S,E,N,W.
    for dir in range(2):
        i2, distance = start_i, 0
        for _ in range(dn2):
            i2 += offsets[dir]
            distance += grid_flat[i2]
        distances[i2, dir, dn2] = distance
    priority_queue = [(distance, state) for state, distance in distances.items()]

    while priority_queue:
        distance, state = heapq.heappop(priority_queue)
        # distance = distances[state]  # Commenting this line improves runtime.
        i, dir, dn = state
        if i == target_i:
            break
        if dn < (10 if part2 else 3):  # Try going straight.
            i2 = i + offsets[dir]
            state2 = i2, dir, dn + 1
            distance2 = distance + grid_flat[i2]
            if distance2 < distances.get(state2, 30_000):
                if distance2 < distances.get((i2, dir, dn2), 30_000):  # Optional, for optimization!
                    distances[state2] = distance2
                    heapq.heappush(priority_queue, (distance2, state2))
        for dir2 in dir2s[dir]:  # Try turning left or right.
            i2, distance2, offset = i, distance, offsets[dir2]
            for _ in range(dn2):
                i2 += offset
                distance2 += grid_flat[i2]
            state2 = i2, dir2, dn2
            if distance2 < distances.get(state2, 30_000):
                distances[state2] = distance2
                heapq.heappush(priority_queue, (distance2, state2))
    else:
        raise ValueError('No solution found.')

    return distance


@numba.njit  # np.linalg.solve() in numba.
def day24c_compute(array, low, high):
    total = 0
    for i1, row1 in enumerate(array):
        for row2 in array[i1 + 1 :]:
            pos1, vel1, pos2, vel2 = row1[:2], row1[3:5], row2[:2], row2[3:5]
            try:
                matrix = np.column_stack((vel1, -vel2))
                t = np.linalg.solve(matrix, pos2 - pos1)
            except Exception:  # For numba. # pylint: disable=broad-exception-caught
                continue
            if np.all(t > 0):
                intersection = pos1 + t[0] * vel1
                total += int(np.all(low <= intersection) and np.all(intersection <= high))
    return total


@numba.njit
def day7_computable(desired, current, values, index, part2):  # Recursive index advance is fastest.
    if current > desired:
        return False
    if index == len(values):
        return current == desired
    value = values[index]
    index += 1
    part2_candidate = current * 10 ** (math.floor(math.log10(value)) + 1) + value
    return (
            day7_computable(desired, current * value, values, index, part2)
            or day7_computable(desired, current + value, values, index, part2)
            or (part2 and day7_computable(desired, part2_candidate, values, index, part2))
    )


@numba.njit
def day10c_jit(grid, part2):  # Numba implementation of day10a().
    # Curiously, dict is faster than Counter when omitting numba jit.
    trailheads = np.argwhere(grid == 0)
    neighbors = (0, -1), (0, 1), (-1, 0), (1, 0)
    total = 0

    for y0, x0 in trailheads:
        if not part2:
            active = {(y0, x0)}  # Set of positions reached after `dist` moves.
            for dist in range(1, 10):
                active2 = set()
                for y, x in active:
                    for dy, dx in neighbors:
                        y2, x2 = y + dy, x + dx
                        if grid[y2, x2] == dist:
                            active2.add((y2, x2))
                active = active2
            total += len(active)

        else:
            counter = {(y0, x0): 1}  # Number of paths reaching position.
            for dist in range(1, 10):
                counter2: dict[tuple[int, int], int] = {}
                for (y, x), count in counter.items():
                    for dy, dx in neighbors:
                        y2, x2 = y + dy, x + dx
                        if grid[y2, x2] == dist:
                            if (y2, x2) in counter2:
                                counter2[y2, x2] += count
                            else:
                                counter2[y2, x2] = count
                counter = counter2
            for count in counter.values():
                total += count

    return total


@numba.njit
def day18_magnitude(snail: np.ndarray) -> int:
    stack = []
    for value in snail:
        if value >= 0:
            stack.append(value)
        elif value == -2:
            right, left = stack.pop(), stack.pop()
            stack.append(3 * left + 2 * right)
    assert len(stack) == 1
    return stack[0]


@numba.njit
def day25_func(grid):
    height, width = grid.shape
    candidate_right = [
            (y, x)
            for y in range(height)
            for x in range(width)
            if grid[y, x] == '>' and grid[y, (x + 1) % width] == '.'
    ]
    candidate_down = [
            (y, x)
            for y in range(height)
            for x in range(width)
            if grid[y, x] == 'v' and grid[(y + 1) % height, x] == '.'
    ]

    for step in range(1, 10**8):
        moved = False

        new_candidate_right = []
        for y, x in candidate_right:
            x2 = (x + 1) % width
            if grid[y, x2] == '.':
                moved = True
                grid[y, x] = '.'
                grid[y, x2] = '>'
                if grid[y, (x + 2) % width] == '.':
                    new_candidate_right.append((y, x2))
                if grid[(y - 1) % height, x] == 'v':
                    candidate_down.append(((y - 1) % height, x))
                elif grid[y, (x - 1) % width] == '>':
                    new_candidate_right.append((y, (x - 1) % width))
        candidate_right = new_candidate_right

        new_candidate_down = []
        for y, x in candidate_down:
            y2 = (y + 1) % height
            if grid[y2, x] == '.':
                moved = True
                grid[y, x] = '.'
                grid[y2, x] = 'v'
                if grid[(y + 2) % height, x] == '.':
                    new_candidate_down.append((y2, x))
                if grid[y, (x - 1) % width] == '>':
                    candidate_right.append((y, (x - 1) % width))
                elif grid[(y - 1) % height, x] == 'v':
                    new_candidate_down.append(((y - 1) % height, x))
        candidate_down = new_candidate_down

        if not moved:
            return step


@numba.njit
def day11_process(itemss1, ops, args, divisible_bys, throwss, activities, part2, mod):
    # Convert "ragged" 2d array to list of lists.
    itemss = [[item for item in items if item >= 0] for items in itemss1]
    for _ in range(10_000 if part2 else 20):
        for i, (items, op, arg, divisible_by, throws) in enumerate(
                zip(itemss, ops, args, divisible_bys, throwss)
        ):
            activities[i] += len(items)
            for item in items:
                item = item * (arg if arg >= 0 else item) if op == '*' else item + arg
                item = item % mod if part2 else item // 3
                dest = throws[int(item % divisible_by != 0)]
                itemss[dest].append(item)
            itemss[i].clear()


@numba.njit
def day24b_min_time_at_dst(grid, time, start_yx, dst_yx):
    shape = grid.shape
    active = {start_yx}
    max_time = time + shape[0] + shape[1] + 150  # Heuristic; 113 is min for my puzzle input.
    while active:
        time += 1
        new_active = set()
        for y, x in active:
            for dy, dx in ((1, 0), (0, 1), (0, 0), (-1, 0), (0, -1)):
                yx2 = y2, x2 = y + dy, x + dx
                if yx2 == dst_yx:
                    return time
                if yx2 == start_yx or (
                        0 <= y2 < shape[0]
                        and 0 <= x2 < shape[1]
                        and grid[y2, (x2 - time) % shape[1]] != '>'
                        and grid[y2, (x2 + time) % shape[1]] != '<'
                        and grid[(y2 - time) % shape[0], x2] != 'v'
                        and grid[(y2 + time) % shape[0], x2] != '^'
                ):
                    remaining_dist = abs(y2 - dst_yx[0]) + abs(x2 - dst_yx[1])
                    if time + remaining_dist <= max_time:  # Heuristic pruning.
                        new_active.add(yx2)
        active = new_active

    raise ValueError('No path found; try increasing max_time.')


@numba.njit
def day16_jit(grid, ys, xs, ye, xe, part2):  # Fastest.
    state = ys, xs, 0  # y, x, direction (0=E, 1=N, 2=W, 3=S).
    distance = np.full((*grid.shape, 4), 10**9)  # For Dijkstra.
    distance[state] = 0
    pq = [(0, *state)]  # distance, y, x, direction.
    found_d = 10**9  # Shortest distance to the end, if found.

    while pq:
        d, y, x, direction = heapq.heappop(pq)
        if d > found_d:
            # return (grid == 'O').sum()
            count = 0
            for row in grid:
                for ch in row:
                    count += ch == 'O'
            return count
        if (y, x) == (ye, xe):
            if not part2:
                return d
            found_d = d
            stack = [(y, x, direction)]
            while stack:
                y, x, direction = stack.pop()
                d = distance[y, x, direction]
                distance[y, x, direction] = 10**9  # For speedup.
                grid[y, x] = 'O'
                dy, dx = ((0, 1), (-1, 0), (0, -1), (1, 0))[direction]
                for d2, y2, x2, direction2 in (
                        (d - 1, y - dy, x - dx, direction),
                        (d - 1000, y, x, (direction + 3) % 4),
                        (d - 1000, y, x, (direction + 1) % 4),
                ):
                    if d2 == distance[y2, x2, direction2]:
                        stack.append((y2, x2, direction2))
            continue

        dy, dx = ((0, 1), (-1, 0), (0, -1), (1, 0))[direction]
        for d2, y2, x2, direction2 in (
                (d + 1, y + dy, x + dx, direction),
                (d + 1000, y, x, (direction + 1) % 4),
                (d + 1000, y, x, (direction + 3) % 4),
        ):
            if grid[y2, x2] != '#' and d2 < distance[y2, x2, direction2]:
                distance[y2, x2, direction2] = d2
                heapq.heappush(pq, (d2, y2, x2, direction2))


def _digits(text):
    return np.array([[int(c) for c in line] for line in text.split()], np.int64)


def _bytes(text):
    return np.array([list(line.encode()) for line in text.split()], np.uint8)


def _chars(text):
    return np.array([list(line) for line in text.split()])


CRUCIBLE = "2413432311323 3215453535623 3255245654254 3446585845452 4546657867536"
TRAILS = "89010123 78121874 87430965 96549874 45678903 32019012 01329801 10456732"
MIRRORS = (".|...\\.... |.-.\\..... .....|-... ........|. .......... .........\\ "
           "..../.\\\\.. .-.-/..|.. .|....-|.\\ ..//.|....")
ELVES = "....#.. ..###.# #...#.# .#...## #.###.. ##.#.## .#..#.."
HAIL = [[19, 13, 30, -2, 1, -2], [18, 19, 22, -1, -1, -2], [20, 25, 34, -2, -2, -4],
        [12, 31, 28, -1, -2, -1], [20, 19, 15, 1, -5, -3]]

CASES = [
    (day8_part2_inner, lambda: (_digits("30373 25512 65332 33549 35390"),)),
    (day15_func, lambda: (np.pad(_digits(CRUCIBLE), 1, constant_values=10**4), True)),
    (day15_func, lambda: (np.pad(_digits(CRUCIBLE), 1, constant_values=10**4), False)),
    (day16_num_visited, lambda: (_bytes(MIRRORS), (0, 0, 1))),
    (day17_drop, lambda: (np.zeros((10, 7), bool), np.ones((1, 4), bool), 3, 2,
                          np.array([1, 1, -1, 1, -1]), np.array([0]))),
    (day20_mix, lambda: (np.array([1, 2, -3, 3, -2, 0, 4]), np.array([6, 0, 1, 2, 3, 4, 5]),
                         np.array([1, 2, 3, 4, 5, 6, 0]))),
    (day22_func, lambda: (np.array([True, True, False, True]),
                          np.array([[[10, 12]] * 3, [[11, 13]] * 3, [[9, 11]] * 3,
                                    [[10, 10]] * 3]))),
    (day23_process, lambda: (np.array([[c == "#" for c in line] for line in ELVES.split()]),
                             False)),
    (day17c_compute, lambda: (np.pad(_digits(CRUCIBLE), 4, constant_values=1000), False, 4)),
    (day24c_compute, lambda: (np.array(HAIL, float), 7.0, 27.0)),
    (day7_computable, lambda: (7290, 6, np.array([6, 8, 6, 15]), 1, True)),
    (day7_computable, lambda: (7291, 6, np.array([6, 8, 6, 15]), 1, True)),
    (day10c_jit, lambda: (np.pad(_digits(TRAILS), 1, constant_values=-1), True)),
    (day10c_jit, lambda: (np.pad(_digits(TRAILS), 1, constant_values=-1), False)),
    (day18_magnitude, lambda: (np.array([-1, -1, 1, 2, -2, -1, -1, 3, 4, -2, 5, -2, -2]),)),
    (day25_func, lambda: (_chars("v...>>.vv> .vv>>.vv.. >>.>v>...v >>v>>.>.v. v>v.vv.v.. "
                                 ">.>>..v... .vv..>.>v. v.v..>>v.v ....v..v.>"),)),
    (day11_process, lambda: (np.array([[79, 98, -1, -1], [54, 65, 75, 74], [79, 60, 97, -1],
                                       [74, -1, -1, -1]]), np.array(["*", "+", "*", "+"]),
                             np.array([19, 6, -1, 3]), np.array([23, 19, 13, 17]),
                             np.array([[2, 3], [2, 0], [1, 3], [0, 1]]), np.zeros(4, np.int64),
                             False, 96577)),
    (day24b_min_time_at_dst, lambda: (_chars(">>.<^< .<..<< >v.><> <^v^^>"), 0, (-1, 0), (4, 5))),
    (day16_jit, lambda: (_chars("####### #....E# #.#.#.# #S....# #######"), 3, 1, 1, 5, True)),
]


def _numba(f):
    """Numba's compilation of f, with the signature the source gives it (without it Numba types
    the rotated grid's layout two ways)."""
    try:
        import numba as real_numba
        import numba.cpython.unsafe.tuple  # noqa: F401  (reached as attributes by the source)
        import numba.np.unsafe.ndarray  # noqa: F401
    except ImportError:
        return None
    if f is day8_part2_inner:
        return real_numba.njit("int64(int64[:, :])")(f.py_func)
    return numba_or_none(f)


@pytest.mark.parametrize("f,make", CASES, ids=[f"{f.__name__}-{i}" for i, (f, _) in
                                                enumerate(CASES)])
def test_same_as_cpython_and_numba(f, make):
    expected_args, args = make(), make()
    expected = f.py_func(*expected_args)
    got = f(*args)
    assert_same(expected, got, where=f.__name__)
    for a, b in zip(expected_args, args):
        if isinstance(a, np.ndarray):
            assert_same(a, b, where=f"{f.__name__} argument")
    nb_f = _numba(f)
    if nb_f is not None:
        nb_args = make()
        assert_same(nb_f(*nb_args), got, where=f"{f.__name__} (Numba)")
